"""A live hand's history says what the dealer reported and what the procedures did: in the
text, and as comments in the PHH (which stays valid TOML, the misdealt deal taken back)."""

from __future__ import annotations

import tomllib

from services.games.poker import events as ev
from services.table.games.poker_history import history
from tests.unit.games.poker_live.live_table import seated_live_table


def test_a_misdealt_hand_is_recorded_with_its_explanation() -> None:
    table = seated_live_table()
    table.hole("As", 1)
    table.hole("Ks", 2, face_up=True)  # the second hole card exposed: a misdeal
    for i, card in enumerate(["Qs", "Js", "Ts", "9s", "8s", "7s"]):
        table.hole(card, (1, 2, 0)[i % 3])
    table.act("fold")
    table.act("fold")
    end = next(i for i, e in enumerate(table.events) if isinstance(e, ev.HandEnded))
    start = max(i for i, e in enumerate(table.events[:end]) if isinstance(e, ev.HandStarted))
    hand = table.events[start : end + 1]
    players = {0: "ann", 1: "bob", 2: "cy"}
    phh, text = history(table.state.engine.config, players, hand, 0, False, "t1")
    assert "*** Misdeal: the second hole card was exposed; the hand will be redealt. ***" in text
    assert "Dealer reports Ks to seat 2 (cy) (face up)" in text
    assert "Dealer reports ?? to seat 1 (bob) (face down)" in text  # not ann's card to see
    parsed = tomllib.loads(phh)
    # The misdealt deal is a comment; the redeal is the hand's deal.
    assert [a for a in parsed["actions"] if a.startswith("d dh")] == [
        "d dh p1 ????",
        "d dh p2 ????",
        "d dh p3 Ts7s",
    ]
    assert "# Misdeal: the second hole card was exposed" in phh
