"""Seats, the button, sitting out and in, leaving, topping up, voiding, and bad input."""

from __future__ import annotations

import pytest

from services.games.poker import (
    TEXAS_HOLDEM,
    Act,
    InvalidAction,
    LeaveTable,
    NeedHandStart,
    NotAllowedNow,
    NotYourSeat,
    SitDown,
    SitIn,
    SitOut,
    StartHand,
    TableConfig,
    TimeOut,
    TopUp,
    UnknownTarget,
    VoidHand,
    pending_chance,
)
from services.games.poker.events import (
    ForcedBetPosted,
    HandStarted,
    HandVoided,
    LeaveRequested,
    PlayerLeft,
    PlayerSatOut,
)
from tests.unit.games.poker.support import Scenario, run, seat_stacks, seated_table

NL = TableConfig(game=TEXAS_HOLDEM, seats=6, min_buy_in=20, max_buy_in=200)


def fold_around(s: Scenario) -> None:
    while s.state.hand is not None:
        seat = s.state.hand.to_act
        assert seat is not None
        s.act(seat, "fold" if s.state.hand.current_bet > s.state.hand.player(seat).bet else "check")


def test_the_button_moves_one_seat_clockwise_each_hand() -> None:
    s = Scenario(NL, [100, None, 100, 100, None, None]).start()
    assert s.state.hand is not None
    assert s.state.hand.button == 0
    fold_around(s)
    s.start()
    assert s.state.hand.button == 2
    fold_around(s)
    s.start()
    assert s.state.hand.button == 3


def test_hands_start_only_with_two_players_sitting_in_with_chips() -> None:
    state, _ = seated_table(NL, [100, None, None, None, None, None])
    assert pending_chance(state) is None
    with pytest.raises(NotAllowedNow, match="two or more players"):
        run(state, StartHand())
    state, _ = run(state, SitDown(3, "p3", 50))
    assert pending_chance(state) == NeedHandStart()


def test_buy_in_must_be_within_the_table_range() -> None:
    state, _ = seated_table(NL, [None] * 6)
    with pytest.raises(InvalidAction, match="between 20 and 200, not 500"):
        run(state, SitDown(0, "alice", 500))


def test_a_seat_cannot_be_taken_twice_and_a_player_sits_once() -> None:
    state, _ = seated_table(NL, [100, None, None, None, None, None])
    with pytest.raises(NotAllowedNow, match="seat 0 is taken"):
        run(state, SitDown(0, "bob", 100))
    with pytest.raises(NotAllowedNow, match="p0 is already seated"):
        run(state, SitDown(1, "p0", 100))


def test_leaving_during_a_hand_takes_effect_after_it_and_returns_the_stack() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None]).start()
    events = s.do(LeaveTable(1))
    assert events == [LeaveRequested(1)]
    fold_around(s)
    left = [e for e in s.log if isinstance(e, PlayerLeft)]
    last = s.log[-1]
    assert isinstance(last, PlayerLeft)  # (the leave is the last thing the hand's end does)
    assert left == [PlayerLeft(1, "p1", last.stack)] and s.state.seats[1] is None


def test_leaving_between_hands_is_immediate() -> None:
    state, _ = seated_table(NL, [100, 100, None, None, None, None])
    state, events = run(state, LeaveTable(1))
    assert events == [PlayerLeft(1, "p1", 100)] and state.seats[1] is None


def test_top_up_only_between_hands_and_up_to_the_maximum_buy_in() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None]).start()
    with pytest.raises(NotAllowedNow, match="top up between hands"):
        s.do(TopUp(0, 50))
    fold_around(s)
    with pytest.raises(InvalidAction, match="between 1 and"):
        s.do(TopUp(0, 150))
    s.do(TopUp(0, 20))


def test_a_sitting_out_player_is_not_dealt_in() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None])
    s.do(SitOut(2))
    s.start()
    assert s.state.hand is not None
    assert [p.seat for p in s.state.hand.players] == [0, 1]


def sit_out_for_a_hand(s: Scenario, seat: int) -> None:
    s.do(SitOut(seat))
    s.start()
    fold_around(s)


def test_a_player_who_sits_back_in_before_missing_a_hand_is_dealt_in_as_usual() -> None:
    s = Scenario(NL, [100, 100, 100, 100, None, None])
    s.do(SitOut(3))
    s.do(SitIn(3))
    events = s.do(StartHand())
    assert isinstance(events[0], HandStarted)
    assert 3 in events[0].seats
    assert not any(isinstance(e, ForcedBetPosted) and e.kind == "returning-blind" for e in events)


def test_a_returning_player_who_posts_is_dealt_in_at_once_with_a_big_blind() -> None:
    s = Scenario(NL, [100, 100, 100, 100, 100, None])
    sit_out_for_a_hand(s, 4)  # hand 1: button 0, blinds 1 and 2
    s.do(SitIn(4, post_big_blind=True))
    events = s.do(StartHand())  # hand 2: button 1, blinds 2 and 3
    assert isinstance(events[0], HandStarted)
    assert 4 in events[0].seats
    assert ForcedBetPosted(4, "returning-blind", 2) in events


def test_a_returning_player_who_waits_is_dealt_in_when_the_big_blind_reaches_them() -> None:
    s = Scenario(NL, [100, 100, 100, 100, 100, None])
    sit_out_for_a_hand(s, 4)  # hand 1: button 0, blinds 1 and 2
    s.do(SitIn(4))
    s.start()  # hand 2: button 1, blinds 2 and 3: seat 4 waits
    assert s.state.hand is not None
    assert 4 not in [p.seat for p in s.state.hand.players]
    fold_around(s)
    s.start()  # hand 3: button 2, blinds 3 and 4: seat 4 plays as the big blind
    started = next(e for e in reversed(s.log) if isinstance(e, HandStarted))
    assert started.big_blind_seat == 4 and 4 in started.seats


def test_acting_for_another_players_seat_is_denied() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None]).start()
    with pytest.raises(NotYourSeat, match="seat 0 belongs to p0, not p1"):
        s.do(Act(0, "call", by="p1"))


def test_an_unknown_hand_or_seat_is_not_found_and_an_old_hand_is_over() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None]).start()
    with pytest.raises(UnknownTarget, match="hand 7 does not exist"):
        s.do(Act(0, "call", hand=7))
    with pytest.raises(UnknownTarget, match="seat 4 is empty"):
        s.do(Act(4, "call"))
    fold_around(s)
    s.start()
    assert s.state.hand is not None and s.state.hand.to_act is not None
    with pytest.raises(NotAllowedNow, match="hand 1 is over"):
        s.do(Act(s.state.hand.to_act, "call", hand=1))


def test_unknown_actions_and_non_cards_are_invalid() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None]).start()
    with pytest.raises(InvalidAction, match="unknown action 'jump'"):
        s.do(Act(0, "jump"))


def test_a_voided_hand_returns_every_chip_committed() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None]).start()
    s.act(0, "raise", 10)
    events = s.do(VoidHand("dealer unavailable"))
    assert events == [HandVoided(1, "dealer unavailable", ((0, 10), (1, 1), (2, 2)))]
    assert seat_stacks(s.state, 3) == [100, 100, 100]
    assert s.state.hand is None


def test_consecutive_timeouts_sit_a_player_out_when_the_table_says_so() -> None:
    config = TableConfig(game=TEXAS_HOLDEM, seats=6, timeouts_before_sit_out=2)
    s = Scenario(config, [100, 100, 100, None, None, None]).start()
    s.do(TimeOut(0))
    fold_around(s)
    s.start()
    assert s.state.hand is not None
    seat = s.state.hand.to_act
    while seat != 0:
        assert seat is not None
        s.act(seat, "call" if s.state.hand.current_bet > s.state.hand.player(seat).bet else "check")
        seat = s.state.hand.to_act
    events = s.do(TimeOut(0))
    assert PlayerSatOut(0, "timeouts") in events


def test_nothing_changes_when_a_command_is_rejected() -> None:
    s = Scenario(NL, [100, 100, 100, None, None, None]).start()
    before = s.state
    with pytest.raises(InvalidAction):
        s.do(Act(0, "raise", 3))
    assert s.state is before
