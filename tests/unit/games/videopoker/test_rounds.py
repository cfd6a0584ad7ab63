"""A round from bet to reveal: money through the ledger, one deal, a deck per line, payouts."""

from __future__ import annotations

from typing import Any

from services.games import contract as c
from services.games.videopoker import RULES, Deal, Hand
from services.games.videopoker import events as ev
from services.games.videopoker.state import STANDARD_DECK
from tests.unit.games.videopoker.machine import Machine

FOUR_TO_A_ROYAL = ["Ah", "Kh", "Qh", "Jh", "2c"]
ROYAL_DRAW = [*FOUR_TO_A_ROYAL, *(card for card in STANDARD_DECK if card not in FOUR_TO_A_ROYAL)]


def of(machine: Machine, kind: type) -> list[Any]:
    return [event for event in machine.events if isinstance(event, kind)]


def test_the_bet_reaches_the_house_before_any_card_is_dealt() -> None:
    machine = Machine()
    machine.sit(100)
    machine.do(c.Move(0, Deal(3, 5, "jacks-9-6")))
    first = RULES.pending_chance(machine.state)
    assert first == c.Transfer("1/bet", c.Party.ESCROW, c.Party.HOUSE, 15)
    machine.run()
    kinds = [type(event) for event in machine.events]
    assert kinds.index(ev.BetTaken) < kinds.index(ev.HandDealt)
    assert machine.house == 15 and machine.escrow == 85
    assert machine.state.seat is not None and machine.state.seat.stack == 85


def test_every_deck_is_committed_before_its_cards_and_the_line_decks_before_the_hold() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(5, 10)
    opened = [r.name for r in machine.requests if isinstance(r, c.OpenShuffle)]
    assert opened == ["deal", "split", "line-1", "line-2", "line-3", "line-4", "line-5"]
    draws = [r for r in machine.requests if isinstance(r, c.DrawCards)]
    assert [(d.name, d.count) for d in draws] == [("deal", 5), ("split", 1)]
    assert RULES.to_act(machine.state) == {0}


def test_each_line_draws_from_its_own_shuffle_of_the_47_undealt_cards() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(10, 1)
    current = machine.state.round
    assert current is not None
    undealt = tuple(card for card in STANDARD_DECK if card not in current.dealt)
    line_decks = [r for r in machine.requests if isinstance(r, c.OpenShuffle) and r.name != "deal"]
    assert len(line_decks) == 10
    assert all(r.deck.cards == undealt for r in line_decks)
    orders = [machine.shuffles[(1, r.name)].order for r in line_decks]
    assert len({tuple(order) for order in orders}) == 10  # ten separate shuffles
    machine.hold()
    drawn = of(machine, ev.LineDrawn)
    assert [d.line for d in drawn] == list(range(1, 11))
    for d in drawn:
        assert len(d.cards) == 5 and set(d.cards) <= set(undealt)
        assert list(d.cards) == orders[d.line - 1][:5]  # the top of that line's own deck
    assert len({d.cards for d in drawn}) == 10


def test_the_five_dealt_cards_are_on_every_line_and_each_line_is_paid_on_its_final_hand() -> None:
    rest = [card for card in STANDARD_DECK if card not in [*FOUR_TO_A_ROYAL, "Th", "3d", "Jc"]]
    machine = Machine(
        decks={"deal": ROYAL_DRAW, "line-1": ["Th"], "line-2": ["3d"], "line-3": ["Jc", *rest]}
    )
    machine.sit(100)
    machine.deal(3, 5)
    machine.hold(0, 1, 2, 3)
    results = of(machine, ev.LinesSettled)[0].results
    assert [r.cards for r in results] == [
        ("Ah", "Kh", "Qh", "Jh", "Th"),
        ("Ah", "Kh", "Qh", "Jh", "3d"),
        ("Ah", "Kh", "Qh", "Jh", "Jc"),
    ]
    assert [r.hand for r in results] == [Hand.ROYAL_FLUSH, Hand.NOTHING, Hand.JACKS_OR_BETTER]
    assert [r.win for r in results] == [4000, 0, 5]
    assert machine.state.seat is not None and machine.state.seat.stack == 100 - 15 + 4005
    assert machine.moved == {"1/bet": 15, "1/win": 4005}
    assert machine.escrow == machine.state.seat.stack and machine.house == 15 - 4005


def test_a_royal_with_fewer_than_five_coins_pays_250_a_coin() -> None:
    machine = Machine(
        decks={"deal": ROYAL_DRAW, "line-1": ["Th"], "line-2": ["Th"], "line-3": ["Th"]}
    )
    machine.sit(100)
    machine.deal(3, 4)
    machine.hold(0, 1, 2, 3)
    assert [r.win for r in of(machine, ev.LinesSettled)[0].results] == [1000, 1000, 1000]


def test_the_denomination_prices_a_coin_in_chips() -> None:
    from services.games.videopoker import MachineConfig

    machine = Machine(
        config=MachineConfig(denomination=25), decks={"deal": ROYAL_DRAW, "line-1": ["Jc"]}
    )
    machine.sit(10_000)
    machine.deal(3, 2)
    assert machine.moved["1/bet"] == 3 * 2 * 25
    machine.hold(0, 1, 2, 3)
    assert of(machine, ev.LinesSettled)[0].results[0].win == 2 * 25  # jacks or better, 1 a coin


def test_holding_all_five_draws_nothing_and_asks_the_dealer_for_no_draw() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 1)
    asked = len(machine.requests)
    machine.hold(0, 1, 2, 3, 4)
    assert not any(isinstance(r, c.DrawCards) for r in machine.requests[asked:])
    assert [d.cards for d in of(machine, ev.LineDrawn)] == [(), (), ()]
    assert machine.state.round is None and machine.state.last is not None


def test_every_deck_is_closed_and_its_reveal_recorded_before_the_round_ends() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 10)
    machine.hold(0)
    closed = [e.name for e in of(machine, ev.DeckClosed)]
    assert closed == ["deal", "split", "line-1", "line-2", "line-3"]
    last = machine.state.last
    assert last is not None and all(deck.reveal for deck in last.decks)
    assert isinstance(machine.events[-1], ev.RoundEnded)


def test_chips_are_conserved_over_many_rounds() -> None:
    machine = Machine(seed=b"conservation")
    machine.sit(5_000)
    for number in range(40):
        machine.deal(
            (3, 5, 10)[number % 3], (1, 5, 10)[number % 3], ("jacks-9-6", "deuces-wild")[number % 2]
        )
        machine.hold(*[p for p in range(5) if (number >> p) & 1])
        assert machine.state.seat is not None
        assert machine.escrow == machine.state.seat.stack
        assert machine.escrow + machine.house == 5_000
