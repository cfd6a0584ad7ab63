"""What watchers may see of a closed shuffle's reveal, and who gets its seed.

The dealer's whole reveal (its seed, and every card dealt, unshown hands included) is kept in
the table's stream (ShuffleRevealed) for service and admin readers. Watchers, the game's own
events and players' hand histories get the public part: the shuffle id, the seed commitment,
the positions root (docs/dealer.md 2.10), the deck and the players' contributions, with which
each player checks the cards it saw from their openings (its card proof, history.py). The
seed is added only where the table's `seed_reveal` policy names everyone, or for a shuffle
closed before it dealt a card (nothing of anyone's to hide).
"""

from __future__ import annotations

import json

from croupier.table.v1 import events_pb2


def seed_is_public(seed_reveal: int, unused: bool) -> bool:
    """Whether every watcher gets the seed of a shuffle revealed under `seed_reveal`."""
    return unused or seed_reveal == events_pb2.SEED_REVEAL_EVERYONE


def public_reveal(reveal_json: str, shuffle_id: str, with_seed: bool = False) -> str:
    """The public part of a dealer's reveal (JSON in, JSON out); the seed only `with_seed`."""
    try:
        reveal = json.loads(reveal_json or "{}")
        public = {
            "shuffle_id": reveal.get("shuffle_id", shuffle_id),
            "commitment_hex": reveal.get("commitment_hex", ""),
            "positions_root_hex": reveal.get("positions_root_hex", ""),
            # public anyway: the players' permutation is computed from them
            "contributions": reveal.get("contributions", []),
        }
        if with_seed:
            public["revealed_seed_hex"] = reveal.get("revealed_seed_hex", "")
    except (ValueError, AttributeError):
        public = {"shuffle_id": shuffle_id}
    return json.dumps(public)
