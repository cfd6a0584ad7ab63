"""The soak's card check finds a card dealt twice, and allows one dealt again after the
discards holding it were reshuffled into the stub (draw games)."""

from __future__ import annotations

from services.games.poker import events as ev

from .soak import dealt_once


def test_a_card_dealt_while_it_is_still_out_is_reported() -> None:
    problems: list[str] = []
    events = [
        ev.CardsDealt(0, ("As", "Kd")),
        ev.CardsDealt(None, ("Qh", "Jc", "Ts"), face_up=True, burned=("2c",)),
        ev.CardsDealt(None, ("As",), face_up=True, burned=("3c",)),
    ]
    assert dealt_once(7, events, problems) == ["As", "Kd", "2c", "Qh", "Jc", "Ts", "3c", "As"]
    assert problems == ["hand 7: As dealt twice"]


def test_a_discarded_card_may_come_again_only_after_a_reshuffle() -> None:
    problems: list[str] = []
    events = [
        ev.CardsDealt(0, ("As", "Kd")),
        ev.CardsDiscarded(0, ("As",)),
        ev.DiscardsReshuffled(("As",)),
        ev.CardsDealt(0, ("As",)),
    ]
    dealt_once(1, events, problems)
    assert problems == []
    dealt_once(2, [ev.CardsDealt(0, ("As",)), ev.DiscardsReshuffled(("As",))], problems)
    assert problems == ["hand 2: As reshuffled but never discarded"]
