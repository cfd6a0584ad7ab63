"""What anyone may see of a closed shuffle's reveal: its seed, its commitment and the
players' contributions, enough to re-derive and check the whole deck (`croupier verify`),
without the dealer's record of which card went where (hole cards never shown stay unnamed).

The full reveal is kept in the table's stream (ShuffleRevealed) for service and admin
readers; watchers and the game's own events get this public part only.
"""

from __future__ import annotations

import json


def public_reveal(reveal_json: str, shuffle_id: str) -> str:
    """The public part of a dealer's reveal (JSON in, JSON out)."""
    try:
        reveal = json.loads(reveal_json or "{}")
        public = {
            "shuffle_id": reveal.get("shuffle_id", shuffle_id),
            "commitment_hex": reveal.get("commitment_hex", ""),
            "revealed_seed_hex": reveal.get("revealed_seed_hex", ""),
            "positions_root_hex": reveal.get("positions_root_hex", ""),
            # public anyway, and needed with the seed to re-derive the deck
            "contributions": reveal.get("contributions", []),
        }
    except (ValueError, AttributeError):
        public = {"shuffle_id": shuffle_id}
    return json.dumps(public)
