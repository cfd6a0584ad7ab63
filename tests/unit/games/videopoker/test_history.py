"""A round's history from its events: every line's draw, the split card, the decks."""

from __future__ import annotations

import json

from services.games.videopoker import history
from services.shuffles.history import parse_hand_history
from tests.unit.games.videopoker.machine import Machine

DEAL = ("Ah", "Kh", "Qh", "Jh", "2c", "9d")


def test_the_history_shows_the_deal_the_hold_every_lines_draw_and_the_decks() -> None:
    machine = Machine(decks={"deal": DEAL, "split": ("Ac",), "line-2": ("9d", "3c", "4c", "5c")})
    machine.sit(1000)
    machine.deal(3, 10)
    machine.hold(0, 1, 2, 3)
    machine.decks = {}
    machine.deal(3, 1)
    machine.hold()
    assert history.rounds_played(machine.events) == [1, 2]
    record = history.round_record(machine.events, 1)
    assert record is not None and record.ended
    data = history.to_json(record)
    json.dumps(data)  # JSON as it is
    assert data["dealt"] == list(DEAL[:5]) and data["held"] == [0, 1, 2, 3]
    assert data["split"] == {"ticket": "Ac", "position": -1, "card": "9d|8d"}
    drawn = {line["line"]: line["drawn"] for line in data["lines_drawn"]}
    assert drawn[2] == ["9d|8d"]  # line 2 drew the undealt split card
    assert len(drawn) == 3 and all(len(cards) == 1 for cards in drawn.values())
    assert data["win"] == sum(line["win"] for line in data["lines_drawn"])
    assert [d["name"] for d in data["decks"]] == ["deal", "split", "line-1", "line-2", "line-3"]
    assert all(d["commitment"] and d["reveal"] for d in data["decks"])
    # Each deck as the dealer's hand history (`croupier verify`): every card dealt from it.
    steps = {d["name"]: d["verification"]["steps"] for d in data["decks"]}
    assert steps["deal"] == [{"deal": list(DEAL[:5])}, {"deal": ["9d"]}]  # then the split
    assert steps["split"] == [{"deal": ["Ac"]}]
    assert steps["line-2"] == [{"deal": ["9d"]}]  # drawn as its base card
    assert data["decks"][1]["verification"]["deck"]["kind"] == "multiset"
    assert data["decks"][2]["verification"]["deck"]["kind"] == "cards"
    assert data["decks"][0]["verification"]["deck"] == {"kind": "standard", "copies": 1}
    for deck in data["decks"]:  # the decks not pinned by the test verify as dealt
        if deck["name"] in ("line-1", "line-3"):
            assert parse_hand_history(deck["verification"]).verify().ok
    text = history.to_text(record)
    assert "Jacks or Better 9/6 (Split Card feature), 3 lines x 10 coins, bet 30" in text
    assert "Split card 9d|8d: ticket Ac, not dealt" in text
    assert "Line 2: drew 9d|8d -> Ah Kh Qh Jh 9d|8d" in text
    assert text.count("Deck ") == 5
    second = history.round_record(machine.events, 2)
    assert second is not None and second.held == () and second.split_ticket == ""
    assert "Held positions none: nothing" in history.to_text(second)
    assert history.round_record(machine.events, 3) is None
