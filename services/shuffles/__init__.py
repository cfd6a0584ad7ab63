"""The verifiable shuffle, as anyone can recompute it: decks, the seed's derivation and its
DRBG, per-position commitments and their openings, the dealing sequence, verification, and
the wire and hand-history formats.

A library, not a service: the dealer derives and deals with it, the table opens the cards
each viewer saw with it (from a closed shuffle's seed, which the table is given), and
`croupier verify` checks a hand with it. It holds no secret and keeps no state beyond a small
memo of the segments it derived last (positions.py: a pure function's answers, keyed by the
seed's hash); the seeds stay in the dealer.
"""
