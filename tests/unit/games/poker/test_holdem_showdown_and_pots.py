"""Hold'em showdown, side pots and rake, as rules."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from services.games.poker import TEXAS_HOLDEM, InvalidAction, TableConfig, legal_actions
from services.games.poker.events import (
    BoardDeclared,
    CardsShown,
    Event,
    HandEnded,
    HandMucked,
    PotAwarded,
    Share,
    UncalledBetReturned,
)
from tests.unit.games.poker.support import Scenario

NL = TableConfig(game=TEXAS_HOLDEM, seats=6, small_blind=1, big_blind=2)
BOARD = ["2c 7d 9h", "Js", "3s"]


def awards(events: Iterable[Event]) -> list[PotAwarded]:
    return [e for e in events if isinstance(e, PotAwarded)]


def check_down(s: Scenario, order: list[int], streets: int = 3) -> None:
    for _ in range(streets):
        for seat in order:
            s.act(seat, "check")


def test_side_pots_form_at_each_all_in_level_and_each_goes_to_the_best_eligible_hand() -> None:
    s = Scenario(
        NL,
        [10, 30, 100, 100, None, None],
        hole={0: "AsAd", 1: "KsKd", 2: "QsQd", 3: "JcTc"},
        boards=BOARD,
    ).start()
    # button 0, sb 1, bb 2; seat 3 first
    s.act(3, "raise", 100)
    s.act(0, "all-in")
    s.act(1, "all-in")
    events = s.act(2, "call")
    pots = awards(events)
    assert [(p.amount, p.eligible) for p in pots] == [
        (40, (0, 1, 2, 3)),
        (60, (1, 2, 3)),
        (140, (2, 3)),
    ]
    assert [p.shares for p in pots] == [(Share(0, 40),), (Share(1, 60),), (Share(2, 140),)]


def test_all_in_showdowns_table_every_hand_without_asking() -> None:
    s = Scenario(NL, [50, 100, None, None, None, None], hole={0: "AsAd", 1: "KsKd"}, boards=BOARD)
    s.start()
    s.act(0, "all-in")
    events = s.act(1, "call")
    assert {e.seat for e in events if isinstance(e, CardsShown)} == {0, 1}
    assert isinstance(events[-1], HandEnded)


def test_last_aggressor_of_the_final_round_shows_first() -> None:
    s = Scenario(
        NL, [100, 100, 100, None, None, None], hole={0: "AsAd", 1: "KsKd", 2: "QsQd"}, boards=BOARD
    ).start()
    s.act(0, "call"), s.act(1, "call"), s.act(2, "check")
    check_down(s, [1, 2, 0], streets=2)
    s.act(1, "check")
    s.act(2, "bet", 10)
    s.act(0, "call")
    s.act(1, "call")
    assert s.state.hand is not None
    assert s.state.hand.showdown_order == (2, 0, 1)
    assert legal_actions(s.state, 2).actions == {"show", "muck", "declare-board"}


def test_without_a_bet_on_the_river_the_first_active_player_left_of_the_button_shows_first() -> (
    None
):
    s = Scenario(NL, [100, 100, 100, None, None, None], boards=BOARD).start()
    s.act(0, "call"), s.act(1, "call"), s.act(2, "check")
    check_down(s, [1, 2, 0])
    assert s.state.hand is not None
    assert s.state.hand.showdown_order == (1, 2, 0)


def test_a_mucked_hand_gives_up_its_claim_and_the_last_hand_wins_without_showing() -> None:
    s = Scenario(
        NL, [100, 100, None, None, None, None], hole={0: "AsAd", 1: "KsKd"}, boards=BOARD
    ).start()
    s.act(0, "call"), s.act(1, "check")
    check_down(s, [1, 0])
    events = s.act(1, "muck")
    assert HandMucked(1) in events
    assert not any(isinstance(e, CardsShown) for e in events)
    assert awards(events)[0].shares == (Share(0, 4),)


def test_a_player_whose_best_hand_is_the_board_must_declare_it_or_loses_the_claim() -> None:
    board = ["Ah Kh Qh", "Jh", "Th"]  # a royal flush on board: everyone plays it
    s = Scenario(NL, [100, 100, None, None, None, None], boards=board).start()
    s.act(0, "call"), s.act(1, "check")
    check_down(s, [1, 0])
    s.act(1, "declare-board")
    events = s.act(0, "muck")  # mucked instead of declaring: no claim
    assert BoardDeclared(1) in s.log and awards(events)[0].shares == (Share(1, 4),)

    s = Scenario(NL, [100, 100, None, None, None, None], boards=board).start()
    s.act(0, "call"), s.act(1, "check")
    check_down(s, [1, 0])
    s.act(1, "declare-board")
    events = s.act(0, "declare-board")
    assert awards(events)[0].shares == (Share(1, 2), Share(0, 2))


def test_ties_split_each_pot_equally() -> None:
    s = Scenario(
        NL,
        [100, 100, 100, None, None, None],
        hole={1: "As Kd", 2: "Ac Kc"},
        boards=["Qh Jd 2s", "3c", "4d"],
    ).start()
    s.act(0, "fold"), s.act(1, "call"), s.act(2, "check")
    check_down(s, [1, 2])
    s.act(1, "show")
    events = s.act(2, "show")
    assert awards(events)[0].shares == (Share(1, 2), Share(2, 2))


def test_rake_is_a_percentage_of_the_pot_up_to_the_cap_once_the_flop_is_dealt() -> None:
    config = TableConfig(game=TEXAS_HOLDEM, seats=6, rake_basis_points=500, rake_cap=3)
    s = Scenario(
        config, [200, 200, None, None, None, None], hole={0: "AsAd", 1: "KsKd"}, boards=BOARD
    ).start()
    s.act(0, "raise", 20), s.act(1, "call")  # pot 40: 5% = 2
    s.act(1, "bet", 40), s.act(0, "call")  # pot 120: 5% = 6 -> capped at 3
    check_down(s, [1, 0], streets=2)
    events = s.act(1, "show")
    events += s.act(0, "show") if s.state.hand else []
    pot = awards(s.log)[0]
    assert (pot.amount, pot.rake, pot.shares) == (120, 3, (Share(0, 117),))


def test_no_rake_when_the_hand_ends_before_the_flop() -> None:
    config = TableConfig(game=TEXAS_HOLDEM, seats=6, rake_basis_points=1000)
    s = Scenario(config, [200, 200, None, None, None, None]).start()
    s.act(0, "raise", 20)
    events = s.act(1, "fold")
    assert awards(events)[0].rake == 0


def test_an_uncalled_bet_on_the_river_returns_before_the_pot_is_awarded() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None], boards=BOARD).start()
    s.act(0, "call"), s.act(1, "check")
    check_down(s, [1, 0], streets=2)
    s.act(1, "bet", 50)
    events = s.act(0, "fold")
    assert events[1] == UncalledBetReturned(1, 50)
    assert awards(events)[0].shares == (Share(1, 4),)


def test_show_and_muck_are_only_for_the_showdown() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None]).start()
    with pytest.raises(InvalidAction, match="not a betting action"):
        s.act(0, "show")
