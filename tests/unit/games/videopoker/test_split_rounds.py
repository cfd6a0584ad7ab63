"""The Split Card feature in a round: a dealt split card, an undealt one drawn by a line, and
what the player is (not) shown."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from services.games import contract as c
from services.games.videopoker import RULES, Hand
from services.games.videopoker import events as ev
from services.games.videopoker.split import ticket_deck
from services.games.videopoker.state import STANDARD_DECK
from tests.unit.games.videopoker.machine import Machine

DEAL = ["7c", "Kd", "Qh", "7d", "2s", "9h"]  # the sixth card is the undealt split's base
DECK = [*DEAL, *(card for card in STANDARD_DECK if card not in DEAL)]


def of(machine: Machine, kind: type) -> list[Any]:
    return [event for event in machine.events if isinstance(event, kind)]


def test_the_split_shuffle_is_the_ticket_deck_of_the_tables_chance() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 10)
    split = next(r for r in machine.requests if isinstance(r, c.OpenShuffle) and r.name == "split")
    assert split.deck.cards == ticket_deck(Fraction(1, 4)).cards
    assert len(split.deck.cards) == 60


def test_a_dealt_split_card_shows_both_cards_and_pays_its_best_five_as_for_five_coins() -> None:
    # Ticket 2d: the first dealt card, second card the same rank: 7c|7c.
    lines = {f"line-{n}": ["7h", "7s", "3c"] for n in (1, 2, 3)}
    machine = Machine(decks={"deal": DECK, "split": ["2d"], **lines})
    machine.sit(100)
    machine.deal(3, 10)
    view = RULES.view_for(machine.state, 0)
    assert view.round is not None and view.round.cards == ("7c|7c", "Kd", "Qh", "7d", "2s")
    assert view.round.split_position == 0
    machine.hold(0, 3)  # the split 7c|7c and the 7d: three sevens, six cards with the draw
    results = of(machine, ev.LinesSettled)[0].results
    assert results[0].cards == ("7c|7c", "7h", "7s", "7d", "3c")
    assert results[0].hand is Hand.FIVE_OF_A_KIND
    assert results[0].win == 5 * 200
    # A dealt split card leaves none in the draw decks: the sixth card is never asked for.
    assert not [
        r for r in machine.requests if isinstance(r, c.DrawCards) and r.recipient == "split card"
    ]


def test_an_undealt_split_card_is_hidden_until_a_line_draws_it() -> None:
    # Ticket Ah: not dealt, the second card one rank up; the sixth deal card 9h is the base.
    machine = Machine(
        decks={
            "deal": DECK,
            "split": ["Ah"],
            "line-1": ["9h", "Jc", "3c"],
            "line-2": ["3c", "4c", "5c"],
        }
    )
    machine.sit(100)
    machine.deal(3, 10)
    placed = of(machine, ev.SplitPlaced)
    assert placed == [ev.SplitPlaced(1, "Ah", -1, 1, "")]
    assert RULES.redact(placed[0], 0) is None and RULES.redact(placed[0], None) is None
    view = RULES.view_for(machine.state, 0)
    assert view.round is not None and view.round.cards == ("7c", "Kd", "Qh", "7d", "2s")
    assert view.round.split_position == -1
    assert not any(isinstance(e, ev.StubSplitFound) for e in machine.events)  # not yet located
    machine.hold(1, 2)  # Kd Qh
    assert of(machine, ev.StubSplitFound) == [ev.StubSplitFound(1, "9h", "Th")]
    drawn = of(machine, ev.LineDrawn)
    assert drawn[0].cards == ("9h|Th", "Jc", "3c")
    assert drawn[1].cards == ("3c", "4c", "5c")
    first = of(machine, ev.LinesSettled)[0].results[0]
    assert first.cards == ("9h|Th", "Kd", "Qh", "Jc", "3c")
    assert first.hand is Hand.STRAIGHT and first.best == ("9h", "Th", "Kd", "Qh", "Jc")
    assert first.win == 5 * 4


def test_a_discarded_split_card_leaves_no_split_in_the_draws() -> None:
    machine = Machine(decks={"deal": DECK, "split": ["6h"]})  # the fifth card, one rank up
    machine.sit()
    machine.deal(5, 10)
    assert machine.state.round is not None and machine.state.round.shown(4) == "2s|3s"
    machine.hold(0, 1)
    assert not any("|" in card for d in of(machine, ev.LineDrawn) for card in d.cards)


def test_without_the_feature_no_split_shuffle_is_opened() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(10, 5)
    assert "split" not in [r.name for r in machine.requests if isinstance(r, c.OpenShuffle)]
    assert not of(machine, ev.SplitPlaced)
