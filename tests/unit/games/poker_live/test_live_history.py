"""A live hand's history says what the dealer reported and what the procedures did: in the
text, and as comments in the PHH (which stays valid TOML, the misdealt deal taken back)."""

from __future__ import annotations

import tomllib

from services.games.poker import events as ev
from services.games.poker.catalog import SIX_CARD_OPEN_DRAW
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


def test_a_live_draw_hand_records_the_exposed_draw_card_and_its_late_replacement() -> None:
    table = seated_live_table(game=SIX_CARD_OPEN_DRAW)
    table.deal_round_robin("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc 2d 3d 4d 5d 6d 7d")
    table.discard("2c")
    table.hole("Ah", 1, face_up=True)  # seat 1's only draw card: dead, owed after the draw
    table.discard()
    table.discard()
    table.hole("Kh", 1)
    for _ in range(3):
        table.act("check")
    for seat in (1, 2, 0):
        table.discard(table.cards_of(seat)[0], "open-discard")
    for _ in range(3):
        table.act("check")
    while table.state.engine.last_hand == 1:
        table.act("show")
    end = next(i for i, e in enumerate(table.events) if isinstance(e, ev.HandEnded))
    start = next(i for i, e in enumerate(table.events) if isinstance(e, ev.HandStarted))
    players = {0: "ann", 1: "bob", 2: "cy"}
    hand = table.events[start : end + 1]
    phh, text = history(table.state.engine.config, players, hand, None, True, "t1")
    assert "Dealer reports Ah to seat 1 (bob) (face up)" in text
    assert "gets its replacement after every other player has drawn" in text
    assert "Dealt to seat 1 (bob): Kh" in text and "Dealt to seat 1 (bob): \n" not in text
    parsed = tomllib.loads(phh)
    assert "d dh p1 Kh" in parsed["actions"]
    assert not any(a.strip() == "d dh p1" for a in parsed["actions"])
