"""Regenerate vectors.json from the production code: `python -m tests.unit.dealer.make_vectors`.

Run once when the spec changes, then review the diff: test_vectors.py checks the file against
both the production code and the independent reference implementation.
"""

import json
from pathlib import Path
from typing import NotRequired, TypedDict

from services.games.cards import format_cards, parse_cards
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, commitment, derive_order, shuffle_key

PATH = Path(__file__).with_name("vectors.json")


class DeckCase(TypedDict):
    kind: str
    cards: NotRequired[list[str]]
    copies: NotRequired[int]


class ContributionCase(TypedDict):
    contributor: str
    entropy: str  # hex


class Case(TypedDict):
    name: str
    seed: str  # hex
    shuffle_id: str
    deck: DeckCase
    contributions: list[ContributionCase]
    nonce: int


class Vector(Case):
    commitment: str  # hex
    key: str  # hex
    order: str  # card text


CASES: list[Case] = [
    {
        "name": "standard deck, no contributions",
        "seed": bytes(range(32)).hex(),
        "shuffle_id": "table-1/hand-1",
        "deck": {"kind": "standard", "copies": 1},
        "contributions": [],
        "nonce": 0,
    },
    {
        "name": "standard deck, two player contributions",
        "seed": "ff" * 32,
        "shuffle_id": "table-42/hand-7",
        "deck": {"kind": "standard", "copies": 1},
        "contributions": [
            {"contributor": "alice", "entropy": "616c6963652d736565642d31"},
            {"contributor": "bob", "entropy": "00"},
        ],
        "nonce": 0,
    },
    {
        "name": "reshuffle segment (nonce 1) over seven cards",
        "seed": bytes(range(32)).hex(),
        "shuffle_id": "table-1/hand-1",
        "deck": {"kind": "cards", "cards": ["As", "Kd", "7h", "2c", "Tc", "9s", "Qh"]},
        "contributions": [{"contributor": "carol", "entropy": "0102030405060708"}],
        "nonce": 1,
    },
    {
        "name": "two-deck multiset (104 cards)",
        "seed": "a5" * 32,
        "shuffle_id": "canasta-3",
        "deck": {"kind": "standard", "copies": 2},
        "contributions": [],
        "nonce": 0,
    },
]


def build() -> list[Vector]:
    vectors: list[Vector] = []
    for case in CASES:
        seed = bytes.fromhex(case["seed"])
        deck = DeckSpec.parse(
            case["deck"]["kind"], case["deck"].get("cards", ()), case["deck"].get("copies", 0)
        )
        contributions = [
            Contribution(c["contributor"], bytes.fromhex(c["entropy"]))
            for c in case["contributions"]
        ]
        order = derive_order(
            seed, case["shuffle_id"], contributions, case["nonce"], deck.card_multiset()
        )
        vectors.append(
            {
                **case,
                "commitment": commitment(case["shuffle_id"], seed).hex(),
                "key": shuffle_key(seed, case["shuffle_id"], contributions, case["nonce"]).hex(),
                "order": format_cards(order),
            }
        )
    assert all(len(parse_cards(v["order"])) == len(v["order"].split()) for v in vectors)
    return vectors


if __name__ == "__main__":
    PATH.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {PATH}")
