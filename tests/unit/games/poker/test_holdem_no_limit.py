"""No-limit Texas hold'em rules, each test named after the rule it checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from services.games.cardtext import Card
from services.games.poker import (
    TEXAS_HOLDEM,
    Act,
    DealCards,
    InvalidAction,
    NeedCards,
    NeedRanks,
    NotAllowedNow,
    StartHand,
    TableConfig,
    TableState,
    TimeOut,
    legal_actions,
    pending_chance,
    rank_hands,
)
from services.games.poker.events import (
    ActionTaken,
    ForcedBetPosted,
    HandEnded,
    PotAwarded,
    Share,
    UncalledBetReturned,
)
from services.games.reference_ranking import ReferenceRanker
from tests.unit.games.poker.support import run, seat_stacks, seated_table

NL = TableConfig(game=TEXAS_HOLDEM, seats=6, small_blind=1, big_blind=2)


def started(
    stacks: Sequence[int | None],
    config: TableConfig = NL,
    hole: Mapping[int, tuple[Card, ...]] | None = None,
) -> TableState:
    state, _ = seated_table(config, stacks)
    state, _ = run(state, StartHand())
    request = pending_chance(state)
    assert isinstance(request, NeedCards)
    hole = hole or {}
    deck = iter(
        [
            "2c",
            "3c",
            "4c",
            "5c",
            "6c",
            "7c",
            "8c",
            "9c",
            "Tc",
            "Jc",
            "Qc",
            "Kc",
            "Ac",
            "2d",
            "3d",
            "4d",
            "5d",
            "6d",
            "7d",
            "8d",
        ]
    )
    # (every target of the hole-card deal is a seat: `seat is not None` only tells mypy)
    deals = tuple(
        (seat, (hole.get(seat) if seat is not None else None) or (next(deck), next(deck)))
        for seat, _ in request.targets
    )
    state, _ = run(state, DealCards(deals))
    return state


def test_blinds_are_posted_left_of_the_button_and_action_starts_left_of_the_big_blind() -> None:
    state, _ = seated_table(NL, [100, 100, 100, 100, None, None])
    state, events = run(state, StartHand())
    posts = [(e.seat, e.kind, e.amount) for e in events if isinstance(e, ForcedBetPosted)]
    assert posts == [(1, "small-blind", 1), (2, "big-blind", 2)]
    state = started([100, 100, 100, 100, None, None])
    assert state.hand is not None
    assert state.hand.to_act == 3


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_before_the_flop() -> None:
    state = started([100, 100, None, None, None, None])
    assert state.hand is not None
    assert state.hand.button == 0
    assert state.hand.player(0).bet == 1 and state.hand.player(1).bet == 2
    assert state.hand.to_act == 0


def test_heads_up_the_button_acts_last_after_the_flop() -> None:
    state = started([100, 100, None, None, None, None])
    state, _ = run(state, Act(0, "call"))
    state, _ = run(state, Act(1, "check"))
    state, _ = run(state, DealCards.to_board(("Ah", "Kh", "Qh"), ("2h",)))
    assert state.hand is not None
    assert state.hand.to_act == 1


def test_big_blind_has_the_option_to_raise_an_unraised_pot() -> None:
    state = started([100, 100, 100, None, None, None])
    state, _ = run(state, Act(0, "call"))
    state, _ = run(state, Act(1, "call"))
    legal = legal_actions(state, 2)
    assert {"check", "raise"} <= legal.actions and legal.min_to == 4


def test_acting_out_of_turn_names_whose_turn_it_is() -> None:
    state = started([100, 100, 100, None, None, None])
    with pytest.raises(NotAllowedNow, match="it is seat 0's turn"):
        run(state, Act(1, "call"))


def test_a_raise_must_increase_the_bet_by_at_least_the_last_full_raise() -> None:
    state = started([100, 100, 100, None, None, None])
    state, _ = run(state, Act(0, "raise", 10))  # raise of 8
    with pytest.raises(InvalidAction, match="between 18 and 100"):
        run(state, Act(1, "raise", 15))


def test_cannot_check_when_facing_a_bet() -> None:
    state = started([100, 100, 100, None, None, None])
    with pytest.raises(InvalidAction, match="cannot check facing a bet of 2"):
        run(state, Act(0, "check"))


def test_an_all_in_for_less_than_a_full_raise_does_not_reopen_the_betting() -> None:
    state = started([100, 100, 15, 100, None, None])
    # button 0, sb 1, bb 2 (15 chips); seat 3 first to act
    state, _ = run(state, Act(3, "raise", 10))
    state, _ = run(state, Act(0, "call"))
    state, _ = run(state, Act(1, "fold"))
    state, _ = run(state, Act(2, "all-in"))  # to 15: a raise of 5 < 8
    assert legal_actions(state, 3).actions == {"fold", "call"}
    state, _ = run(state, Act(3, "call"))
    assert legal_actions(state, 0).actions == {"fold", "call"}


def test_no_raise_is_offered_when_no_opponent_has_chips_left_to_answer_it() -> None:
    state = started([100, 40, None, None, None, None])
    state, _ = run(state, Act(0, "call"))
    state, _ = run(state, Act(1, "all-in"))  # to 40: seat 1 has nothing behind
    assert legal_actions(state, 0).actions == {"fold", "call"}
    with pytest.raises(InvalidAction):
        run(state, Act(0, "raise", 80))
    with pytest.raises(InvalidAction):
        run(state, Act(0, "all-in"))


def test_uncalled_bet_returns_to_the_bettor_and_the_last_player_wins_without_showing() -> None:
    state = started([100, 100, 100, None, None, None])
    state, _ = run(state, Act(0, "raise", 30))
    state, _ = run(state, Act(1, "fold"))
    state, events = run(state, Act(2, "fold"))
    assert UncalledBetReturned(0, 28) in events
    awarded = [e for e in events if isinstance(e, PotAwarded)]
    assert awarded == [PotAwarded(0, 5, (0,), (Share(0, 5),), 0)]
    assert isinstance(events[-1], HandEnded)
    assert state.hand is None and seat_stacks(state, 3) == [103, 99, 98]


def test_timeout_checks_when_checking_is_legal_and_folds_otherwise() -> None:
    state = started([100, 100, 100, None, None, None])
    state, events = run(state, TimeOut(0))
    assert events[0] == ActionTaken(0, "fold", 0, 0)
    state, _ = run(state, Act(1, "call"))
    state, events = run(state, TimeOut(2))
    assert events[0] == ActionTaken(2, "check", 2, 0)


def test_a_stale_timeout_changes_nothing() -> None:
    state = started([100, 100, 100, None, None, None])
    assert run(state, TimeOut(1))[1] == []


def test_showdown_splits_a_tie_and_gives_the_odd_chip_to_the_first_winner_left_of_the_button() -> (
    None
):
    config = TableConfig(game=TEXAS_HOLDEM, seats=6, small_blind=1, big_blind=2, ante=1)
    state = started(
        [100, 100, 100, None, None, None],
        config,
        hole={0: ("2s", "3d"), 1: ("2h", "3s"), 2: ("4d", "5d")},
    )
    state, _ = run(state, Act(0, "call"))
    state, _ = run(state, Act(1, "raise", 4))  # antes 3 + 4 + 4 + dead 2 = 13 chips
    state, _ = run(state, Act(2, "fold"))
    state, _ = run(state, Act(0, "call"))
    for board, burn in ((("Ah", "Kh", "Qc"), ("9c",)), (("Jd",), ("9d",)), (("Tc",), ("9h",))):
        state, _ = run(state, DealCards.to_board(board, burn))
        state, _ = run(state, Act(1, "check"))
        state, _ = run(state, Act(0, "check"))
    assert isinstance(pending_chance(state), NeedRanks)
    state, events = run(state, rank_hands(state, ReferenceRanker()))
    # both play the broadway straight on board; seat 1 shows first (first left of button)
    state, _ = run(state, Act(1, "show"))
    state, events = run(state, Act(0, "declare-board"))
    award = next(e for e in events if isinstance(e, PotAwarded))
    assert award.amount == 13 and award.shares == (Share(1, 7), Share(0, 6))
