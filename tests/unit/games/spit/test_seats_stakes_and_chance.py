"""Seats, stakes, conceding and voiding a game, and the dealer's answers."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow, NotYourSeat
from services.games.spit import RULES, SpitConfig, Variation
from services.games.spit import events as ev
from tests.unit.games.spit.support import Dealer, Table


def test_sitting_down_in_a_taken_seat_or_twice_or_in_a_third_seat_is_refused() -> None:
    table = Table()
    table.run(c.SitDown(0, "ann", 50))
    with pytest.raises(NotAllowedNow, match="seat 0 is taken by ann"):
        RULES.decide(table.state, c.SitDown(0, "bob", 50))
    with pytest.raises(NotAllowedNow, match="ann is already seated"):
        RULES.decide(table.state, c.SitDown(1, "ann", 50))
    with pytest.raises(InvalidAction, match="seats 0 and 1, not 2"):
        RULES.decide(table.state, c.SitDown(2, "cat", 50))


def test_a_buy_in_outside_the_range_and_chips_above_the_maximum_are_refused() -> None:
    table = Table(SpitConfig(min_buy_in=20, max_buy_in=200))
    with pytest.raises(InvalidAction, match="bring 20 to 200 chips to this table, not 19"):
        RULES.decide(table.state, c.SitDown(0, "ann", 19))
    with pytest.raises(InvalidAction, match="not 201"):
        RULES.decide(table.state, c.SitDown(0, "ann", 201))
    table.run(c.SitDown(0, "ann", 150))
    with pytest.raises(InvalidAction, match="a stack is at most 200 chips: add at most 50"):
        RULES.decide(table.state, c.AddChips(0, 51))
    assert RULES.decide(table.state, c.AddChips(0, 50)) == [ev.ChipsAdded(0, 50)]
    with pytest.raises(InvalidAction, match="buy-in range"):
        SpitConfig(min_buy_in=30, max_buy_in=20).checked()


def test_each_player_puts_up_the_stake_when_the_game_starts() -> None:
    table = Table(SpitConfig(stake=30))
    table.run(c.SitDown(0, "ann", 100))
    table.run(c.SitDown(1, "bob", 20))
    assert RULES.pending_chance(table.state) is None  # bob cannot cover the stake
    table.run(c.AddChips(1, 10))
    table.settle()
    assert ev.GameStarted(1, 1, 30, (70, 0)) in table.events
    assert [s.stack for s in RULES.seats(table.state)] == [70, 0]
    assert all(s.in_round for s in RULES.seats(table.state))


def test_leaving_during_a_game_concedes_it_and_the_opponent_takes_both_stakes() -> None:
    table = Table(SpitConfig(stake=30))
    table.seat_both()
    events = table.run(c.Leave(1, by="bob"))
    assert events == [
        ev.GameEnded(1, 0, "conceded", (60, 0), (130, 70)),
        ev.PlayerLeft(1, "bob", 70),
    ]
    # The game's shuffle is revealed; no new game starts with one player.
    assert RULES.pending_chance(table.state) == c.CloseShuffle(1, "deck")
    table.settle()
    assert RULES.pending_chance(table.state) is None


def test_a_player_who_leaves_takes_their_stack_away() -> None:
    table = Table(SpitConfig(stake=30))
    table.seat_both()
    left = table.run(c.Leave(1, by="bob"))
    assert [RULES.cash_out(e) for e in left] == [None, c.CashOut(1, "bob", 70)]
    assert all(RULES.cash_out(e) is None for e in table.events[:-1])


def test_sitting_in_takes_no_option() -> None:
    table = Table()
    table.seat_both()
    table.run(c.SitOut(0))
    with pytest.raises(InvalidAction, match="no options for sitting in"):
        RULES.decide(table.state, c.SitIn(0, option="post"))


def test_a_void_game_returns_each_stake() -> None:
    table = Table(SpitConfig(stake=30))
    table.seat_both()
    assert table.run(c.Void("the dealer is down")) == [
        ev.GameEnded(1, None, "void: the dealer is down", (30, 30), (100, 100))
    ]
    assert table.run(c.Void("again")) == []


def test_once_every_shuffle_is_revealed_the_next_game_starts() -> None:
    table = Table()
    table.seat_both()
    table.run(c.Void("test"))
    table.settle()
    revealed = [e for e in table.events if isinstance(e, ev.ShuffleRevealed)]
    assert [(e.round, e.name) for e in revealed] == [(1, "deck")]
    assert RULES.pending_chance(table.state) == c.StartRound(2)
    table.run(c.SitOut(0, by="ann"))
    assert RULES.pending_chance(table.state) is None
    table.run(c.SitIn(0))
    table.settle(next_game=True)
    assert table.state.games == 2 and table.deal.number == 2


def test_acting_for_someone_elses_seat_is_refused() -> None:
    table = Table()
    table.seat_both()
    with pytest.raises(NotYourSeat):
        RULES.decide(table.state, c.Leave(0, by="bob"))


def test_a_repeated_dealer_answer_changes_nothing_and_an_unasked_one_is_refused() -> None:
    table = Table()
    table.run(c.SitDown(0, "ann", 0))
    table.run(c.SitDown(1, "bob", 0))
    table.run(c.RoundStarts(1))
    opened = c.ShuffleOpened(1, "deck", "s1", "commit")
    table.run(opened)
    assert table.run(opened) == []
    assert table.run(c.RoundStarts(1)) == []
    with pytest.raises(NotAllowedNow, match="did not ask to open shuffle 'seat-0'"):
        RULES.decide(table.state, c.ShuffleOpened(1, "seat-0", "s2", "commit"))
    with pytest.raises(NotAllowedNow, match="only once the game is over"):
        RULES.decide(table.state, c.ShuffleClosed(1, "deck", "{}"))


def test_the_dealer_cannot_deal_a_card_twice_or_the_wrong_number_of_cards() -> None:
    table = Table()
    table.run(c.SitDown(0, "ann", 0))
    table.run(c.SitDown(1, "bob", 0))
    table.run(c.RoundStarts(1))
    table.run(c.ShuffleOpened(1, "deck", "s1", "commit"))
    with pytest.raises(InvalidAction, match="26 cards were asked for, not 2"):
        RULES.decide(table.state, c.CardsDrawn(1, "deck", ("As", "Ks")))
    first = tuple(f"{r}{s}" for r in "23456789TJQKA" for s in "cd")
    table.run(c.CardsDrawn(1, "deck", first))
    with pytest.raises(InvalidAction, match="2c was dealt twice"):
        RULES.decide(table.state, c.CardsDrawn(1, "deck", ("2c", *first[1:])))


def test_bicycle_deals_every_card_of_each_players_own_deck() -> None:
    table = Table(SpitConfig(variation=Variation.BICYCLE), Dealer(seed=1))
    table.seat_both()
    laid = [e for e in table.events if isinstance(e, ev.LaidOut)]
    assert [len(e.spit) + len(e.places) for e in laid] == [52, 52]


def test_every_event_has_one_stable_stored_name() -> None:
    from typing import get_args

    from services.games.spit import EVENT_TYPES, SpitEvent

    classes = get_args(SpitEvent)
    assert set(EVENT_TYPES.values()) == set(classes)
    assert all(name == f"spit.{cls.__name__}" for name, cls in EVENT_TYPES.items())
    assert RULES.name == "spit"
