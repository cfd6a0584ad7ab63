"""Chance inputs (cards, ranks) are validated like any command; showdown timeouts."""

from __future__ import annotations

import pytest

from services.games.poker import (
    SPIT_IN_THE_OCEAN,
    TEXAS_HOLDEM,
    Act,
    DealCards,
    InvalidAction,
    NeedCards,
    NeedRanks,
    NotAllowedNow,
    StartHand,
    SupplyHandRanks,
    TableConfig,
    TimeOut,
    pending_chance,
)
from services.games.poker.events import CardsDealt, CardsShown, HandMucked, PotAwarded, Share
from tests.unit.games.poker.support import Scenario, run, seat_stacks, seated_table

NL = TableConfig(game=TEXAS_HOLDEM, seats=6)
BOARD = ["2c 7d 9h", "Js", "3s"]


def test_a_card_already_dealt_in_this_hand_is_rejected_by_name() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None], hole={0: "As Ad"}).start()
    s.act(0, "call")
    s.do(Act(1, "check"))
    with pytest.raises(InvalidAction, match="card As was already dealt"):
        s.do(DealCards.to_board(("As", "Kd", "Qd"), ("2h",)))


def test_a_dealt_string_that_is_not_a_card_is_rejected_by_name() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None], hole={0: "As Ad", 1: "Ks Kc"}).start()
    s.act(0, "call")
    s.do(Act(1, "check"))
    with pytest.raises(InvalidAction, match="'Xx' is not a card"):
        s.do(DealCards.to_board(("Qd", "Xx", "Jd"), ("2h",)))


def test_the_same_card_twice_in_one_deal_is_rejected_by_name() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None], hole={0: "As Ad", 1: "Ks Kc"}).start()
    s.act(0, "call")
    s.do(Act(1, "check"))
    with pytest.raises(InvalidAction, match="card Qd was already dealt"):
        s.do(DealCards.to_board(("Qd", "Jd", "Qd"), ("2h",)))
    with pytest.raises(InvalidAction, match="card 2h was already dealt"):
        s.do(DealCards.to_board(("Qd", "Jd", "2h"), ("2h",)))  # the burn card counts too


def test_the_board_must_come_with_the_burn_card_the_engine_asked_for() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None], hole={0: "As Ad", 1: "Ks Kc"}).start()
    s.act(0, "call")
    s.do(Act(1, "check"))
    with pytest.raises(InvalidAction, match=r"burn 1 card\(s\) first, got 0"):
        s.do(DealCards.to_board(("Qd", "Jd", "Td")))


def test_cards_must_go_to_the_targets_the_engine_asked_for() -> None:
    state, _ = seated_table(NL, [100, 100, None, None, None, None])
    state, _ = run(state, StartHand())
    assert isinstance(pending_chance(state), NeedCards)
    with pytest.raises(InvalidAction, match="cards are needed for seat 1"):
        run(state, DealCards.to_board(("As", "Kd", "Qd")))
    with pytest.raises(InvalidAction, match="seat 1 needs 2 card"):
        run(state, DealCards(((1, ("As",)), (0, ("Kd", "Kc")))))
    with pytest.raises(NotAllowedNow, match="no showdown is waiting"):
        run(state, SupplyHandRanks(()))


def test_ranks_must_cover_every_hand_still_in() -> None:
    s = Scenario(NL, [100, 100, None, None, None, None], boards=BOARD).start()
    s.act(0, "call")
    s.do(Act(1, "check"))
    s.settle()
    for _ in range(3):
        s.do(Act(1, "check"))
        s.do(Act(0, "check"))
        if not isinstance(pending_chance(s.state), NeedRanks):
            s.settle()
    assert isinstance(pending_chance(s.state), NeedRanks)
    with pytest.raises(InvalidAction, match=r"ranks are needed for seats \[0, 1\]"):
        s.do(SupplyHandRanks(()))


def test_an_all_in_before_the_flop_still_deals_every_board_card_then_shows_down() -> None:
    s = Scenario(
        NL, [100, 100, None, None, None, None], hole={0: "As Ad", 1: "Ks Kd"}, boards=BOARD
    ).start()
    s.act(0, "all-in")
    events = s.act(1, "call")
    boards = [e for e in events if isinstance(e, CardsDealt) and e.seat is None]
    assert [len(b.cards) for b in boards] == [3, 1, 1]
    assert s.state.hand is None and seat_stacks(s.state, 2) == [200, 0]


def test_showdown_timeout_shows_a_winning_hand_and_mucks_a_losing_one() -> None:
    s = Scenario(
        NL, [100, 100, None, None, None, None], hole={0: "As Ad", 1: "Ks Kd"}, boards=BOARD
    ).start()
    s.act(0, "call"), s.act(1, "check")
    for _ in range(3):
        s.act(1, "check"), s.act(0, "check")
    losing = s.do(TimeOut(1))  # kings lose to aces: muck
    assert losing[0] == HandMucked(1)
    s = Scenario(
        NL, [100, 100, None, None, None, None], hole={0: "Ks Kd", 1: "As Ad"}, boards=BOARD
    ).start()
    s.act(0, "call"), s.act(1, "check")
    for _ in range(3):
        s.act(1, "check"), s.act(0, "check")
    winning = s.do(TimeOut(1))
    assert winning[0] == CardsShown(1, ("As", "Ad"))


def test_in_spit_in_the_ocean_the_last_player_in_wins_without_showing() -> None:
    config = TableConfig(game=SPIT_IN_THE_OCEAN, seats=6, ante=1)
    s = Scenario(config, [100, 100, 100, None, None, None], boards=["7h"]).start()
    s.act(1, "bet", 2)
    s.act(2, "fold")
    events = s.act(0, "fold")
    assert not any(isinstance(e, CardsShown) for e in events)
    # antes 3; the uncalled bet of 2 goes back to the bettor
    assert next(e for e in events if isinstance(e, PotAwarded)).shares == (Share(1, 3),)
