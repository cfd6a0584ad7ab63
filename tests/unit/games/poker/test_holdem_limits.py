"""Pot-limit and fixed-limit betting, and the no-limit minimums, as rules."""

from __future__ import annotations

import pytest

from services.games.poker import TEXAS_HOLDEM, InvalidAction, Structure, TableConfig, legal_actions
from tests.unit.games.poker.support import Scenario

PL = TableConfig(game=TEXAS_HOLDEM, structure=Structure.POT_LIMIT, seats=6)
FL = TableConfig(game=TEXAS_HOLDEM, structure=Structure.FIXED_LIMIT, seats=6)
NL = TableConfig(game=TEXAS_HOLDEM, seats=6)
FOUR = [500, 500, 500, 500, None, None]


def test_pot_limit_maximum_raise_is_the_pot_after_the_call() -> None:
    s = Scenario(PL, FOUR).start()
    # blinds 1 + 2 = 3; seat 3 calls 2 -> pot 5, raise by 5 -> to 7
    assert legal_actions(s.state, 3).max_to == 7
    s.act(3, "raise", 7)
    # pot 10, seat 0 calls 7 -> 17, raises 17 -> to 24
    assert legal_actions(s.state, 0).max_to == 24
    with pytest.raises(InvalidAction, match="between 12 and 24"):
        s.act(0, "raise", 25)


def test_pot_limit_maximum_bet_is_the_pot() -> None:
    s = Scenario(PL, FOUR).start()
    s.act(3, "call"), s.act(0, "call"), s.act(1, "call"), s.act(2, "check")
    legal = legal_actions(s.state, 1)
    assert (legal.min_to, legal.max_to) == (2, 8)


def test_pot_limit_all_in_is_legal_only_within_the_pot() -> None:
    s = Scenario(PL, FOUR).start()
    assert "all-in" not in legal_actions(s.state, 3).actions


def test_no_limit_minimum_bet_is_one_big_blind() -> None:
    s = Scenario(NL, FOUR).start()
    s.act(3, "call"), s.act(0, "call"), s.act(1, "call"), s.act(2, "check")
    with pytest.raises(InvalidAction, match="between 2 and 498"):
        s.act(1, "bet", 1)


def test_cumulative_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting() -> None:
    s = Scenario(NL, [500, 500, 500, 500, 115, 118]).start()
    # button 0, sb 1, bb 2; seat 3 first
    s.act(3, "raise", 100)  # full raise of 98
    s.act(4, "all-in")  # 115: +15, short
    s.act(5, "all-in")  # 118: +3 more; 18 over 100 in all, still short of 98
    s.act(0, "fold"), s.act(1, "fold"), s.act(2, "fold")
    assert legal_actions(s.state, 3).actions == {"fold", "call"}


def test_fixed_limit_uses_the_small_bet_before_the_turn_and_the_big_bet_after() -> None:
    s = Scenario(FL, FOUR).start()
    legal = legal_actions(s.state, 3)
    assert (legal.min_to, legal.max_to) == (4, 4)
    s.act(3, "call"), s.act(0, "call"), s.act(1, "call"), s.act(2, "check")
    assert legal_actions(s.state, 1).min_to == 2
    for seat in (1, 2, 3, 0):
        s.act(seat, "check")
    assert legal_actions(s.state, 1).min_to == 4


def test_fixed_limit_allows_one_bet_and_three_raises_per_round() -> None:
    s = Scenario(FL, FOUR).start()
    s.act(3, "raise", 4), s.act(0, "raise", 6), s.act(1, "raise", 8)
    assert "raise" not in legal_actions(s.state, 2).actions  # blind + 3 raises = cap
    with pytest.raises(InvalidAction, match="raising is not allowed"):
        s.act(2, "raise", 10)


def test_fixed_limit_is_uncapped_heads_up_unless_the_table_caps_it() -> None:
    s = Scenario(FL, [500, 500, None, None, None, None]).start()
    for to, seat in zip((4, 6, 8, 10, 12), (0, 1, 0, 1, 0), strict=True):
        s.act(seat, "raise", to)
    assert "raise" in legal_actions(s.state, 1).actions
    capped = TableConfig(
        game=TEXAS_HOLDEM, structure=Structure.FIXED_LIMIT, uncapped_heads_up=False
    )
    s = Scenario(capped, [500, 500, None, None, None, None]).start()
    s.act(0, "raise", 4), s.act(1, "raise", 6), s.act(0, "raise", 8)
    assert "raise" not in legal_actions(s.state, 1).actions


def test_fixed_limit_all_in_of_half_a_bet_or_more_reopens_the_betting() -> None:
    s = Scenario(FL, [500, 500, 500, 100, 3, None]).start()
    s.act(3, "call")
    s.act(4, "all-in")  # to 3: +1 is half the small bet of 2, so it counts as a raise
    s.act(0, "call"), s.act(1, "call"), s.act(2, "call")
    assert "raise" in legal_actions(s.state, 3).actions


def test_fixed_limit_all_in_of_less_than_half_a_bet_does_not_reopen_the_betting() -> None:
    config = TableConfig(
        game=TEXAS_HOLDEM, structure=Structure.FIXED_LIMIT, small_blind=2, big_blind=4
    )
    s = Scenario(config, [500, 500, 500, 100, 5, None]).start()
    s.act(3, "call")
    s.act(4, "all-in")  # to 5: +1 is less than half the small bet of 4
    s.act(0, "call"), s.act(1, "call"), s.act(2, "call")
    assert legal_actions(s.state, 3).actions == {"fold", "call"}
