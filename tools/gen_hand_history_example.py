"""Write docs/dealer-hand-history.example.json and .phh: a three-player hold'em hand exactly as
the table deals it (one HOLE deal round the table from the button's left, a BURN before each
board deal), with two revealed contributions and one withheld commitment, and alice's own
hand history of it (the others' cards hidden, as GetHandHistory gives it to her).

    python tools/gen_hand_history_example.py          # rewrite both files
    python tools/gen_hand_history_example.py --check  # exit 1 if they are stale (a test runs it)

`croupier verify docs/dealer-hand-history.example.json --history
docs/dealer-hand-history.example.phh` checks the hand and alice's cards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from services.games.cards import standard_deck
from services.shuffles.derivation import (
    Contribution,
    commitment,
    derive_order,
    entropy_commitment,
)

ROOT = Path(__file__).resolve().parents[1]
JSON_PATH = ROOT / "docs" / "dealer-hand-history.example.json"
PHH_PATH = ROOT / "docs" / "dealer-hand-history.example.phh"
SHUFFLE_ID = "table-42.hand-7"
SEED = bytes(range(32))
REVEALED = [
    Contribution("alice", b"alice-seed-0001-alice-seed-0001!"),
    Contribution("bob", bytes.fromhex("b0b0" * 16)),
]
WITHHELD = ("carol", b"carol never reveals these bytes!")
PLAYERS = ("alice", "bob", "carol")  # left of the button first (PHH p1, p2, p3)


def build() -> tuple[str, str]:
    order = [str(c) for c in derive_order(SEED, SHUFFLE_ID, REVEALED, 0, standard_deck())]
    n = len(PLAYERS)
    hole, rest = order[: 2 * n], order[2 * n :]
    steps = [{"deal": hole, "purpose": "hole", "recipient": "", "positioned": True}]
    board: list[list[str]] = []
    for size in (3, 1, 1):
        burn, rest = rest[0], rest[1:]
        cards, rest = rest[:size], rest[size:]
        steps += [
            {"deal": [burn], "purpose": "burn", "recipient": "", "positioned": True},
            {"deal": cards, "purpose": "board", "recipient": "", "positioned": True},
        ]
        board.append(cards)
    contributors = [*REVEALED, Contribution(*WITHHELD)]
    document = {
        "format": "croupier-hand-history/1",
        "shuffle_id": SHUFFLE_ID,
        "deck": {"kind": "standard", "copies": 1},
        "commitment": commitment(SHUFFLE_ID, SEED).hex(),
        "server_seed": SEED.hex(),
        "contributions": [
            {"contributor": c.contributor, "entropy": c.entropy.hex()} for c in REVEALED
        ],
        "commitments": [
            {
                "contributor": c.contributor,
                "commitment": entropy_commitment(SHUFFLE_ID, c.contributor, c.entropy).hex(),
                "revealed": c in REVEALED,
            }
            for c in contributors
        ],
        "steps": steps,
    }
    actions = []
    for i, _ in enumerate(PLAYERS):
        mine = "".join(hole[i + j * n] for j in range(2)) if i == 0 else "????"
        actions.append(f"d dh p{i + 1} {mine}")
    actions += ["p2 cc", "p3 cc", "p1 cc"]
    for cards in board:
        actions.append(f"d db {''.join(cards)}")
        actions += ["p1 cc", "p2 cc", "p3 cc"]
    actions += ["p1 sm", "p2 sm", "p3 sm"]
    phh = "\n".join(
        [
            'variant = "NT"',
            "ante_trimming_status = true",
            "antes = [0, 0, 0]",
            "blinds_or_straddles = [1, 2, 0]",
            "min_bet = 2",
            "starting_stacks = [200, 200, 200]",
            "actions = [",
            *(f'  "{a}",' for a in actions),
            "]",
            f"players = {json.dumps(list(PLAYERS))}",
            "seats = [1, 2, 3]",
            "seat_count = 6",
            'table = "table-42"',
            "hand = 7",
        ]
    )
    return json.dumps(document, indent=2) + "\n", phh + "\n"


def main(argv: list[str]) -> int:
    document, phh = build()
    if "--check" in argv:
        stale = [
            p.name for p, text in ((JSON_PATH, document), (PHH_PATH, phh)) if p.read_text() != text
        ]
        if stale:
            print(f"stale: {', '.join(stale)}; run python tools/gen_hand_history_example.py")
            return 1
        return 0
    JSON_PATH.write_text(document)
    PHH_PATH.write_text(phh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
