"""Spit in the Ocean and Six-Card Open Draw, as rules."""

from __future__ import annotations

import pytest

from services.games.poker import (
    SIX_CARD_OPEN_DRAW,
    SPIT_IN_THE_OCEAN,
    Act,
    InvalidAction,
    NeedCards,
    NeedReshuffle,
    StartHand,
    TableConfig,
    TimeOut,
    legal_actions,
    pending_chance,
    view_for,
)
from services.games.poker.events import CardsDiscarded, ForcedBetPosted, PotAwarded, Share
from services.games.poker.views import HIDDEN
from tests.unit.games.poker.support import Scenario, cards, run, seated_table

SPIT = TableConfig(game=SPIT_IN_THE_OCEAN, seats=6, ante=1)
SIX = TableConfig(game=SIX_CARD_OPEN_DRAW, seats=6, ante=1)
THREE = [100, 100, 100, None, None, None]


def test_spit_every_player_antes_and_gets_four_cards_one_at_a_time() -> None:
    state, _ = seated_table(SPIT, THREE)
    state, events = run(state, StartHand())
    assert [e.kind for e in events if isinstance(e, ForcedBetPosted)] == ["ante"] * 3
    request = pending_chance(state)
    assert request == NeedCards(((1, 4), (2, 4), (0, 4)), 0, False, True)


def test_spit_card_is_dealt_face_up_and_betting_starts_left_of_the_dealer() -> None:
    s = Scenario(SPIT, THREE, boards=["7h"]).start()
    assert s.state.hand is not None
    assert s.state.hand.board == ("7h",)
    assert view_for(s.state, None).board == ("7h",)
    assert s.state.hand.to_act == 1


def test_spit_card_can_never_be_discarded() -> None:
    s = Scenario(SPIT, THREE, boards=["7h"]).start()
    for seat in (1, 2, 0):
        s.act(seat, "check")
    with pytest.raises(InvalidAction, match="the spit card 7h can never be discarded"):
        s.act(1, "discard", cards_="7h")


def test_a_discard_must_be_cards_the_player_holds() -> None:
    s = Scenario(SPIT, THREE, hole={1: "2c 3c 4c 5c"}, boards=["7h"]).start()
    for seat in (1, 2, 0):
        s.act(seat, "check")
    with pytest.raises(InvalidAction, match="Ad is not in seat 1's hand"):
        s.act(1, "discard", cards_="Ad")


def test_the_table_draw_limit_caps_the_number_of_cards_drawn() -> None:
    config = TableConfig(game=SPIT_IN_THE_OCEAN, seats=6, ante=1, draw_limit=2)
    s = Scenario(config, THREE, hole={1: "2c 3c 4c 5c"}, boards=["7h"]).start()
    for seat in (1, 2, 0):
        s.act(seat, "check")
    assert legal_actions(s.state, 1).max_discards == 2
    with pytest.raises(InvalidAction, match="the draw limit is 2"):
        s.act(1, "discard", cards_="2c 3c 4c")


def test_drawn_cards_replace_the_discards_and_standing_pat_draws_nothing() -> None:
    s = Scenario(SPIT, THREE, hole={1: "2c 3c 4c 5c"}, boards=["7h"], draws={1: "Ac Ad"}).start()
    for seat in (1, 2, 0):
        s.act(seat, "check")
    s.act(1, "discard", cards_="2c 3c")
    assert s.state.hand is not None
    assert s.state.hand.player(1).cards == cards("4c 5c Ac Ad")
    s.act(2, "discard")
    assert len(s.state.hand.player(2).cards) == 4 and s.state.hand.to_act == 0


def test_spit_rank_is_wild_and_five_of_a_kind_beats_a_straight_flush() -> None:
    s = Scenario(
        SPIT, THREE, hole={1: "7c 7d Kd Ks", 2: "9h Th Jh Qh", 0: "2c 3d 4s 5h"}, boards=["7h"]
    ).start()
    for _ in range(3):  # bet, draw (stand pat), bet
        for seat in (1, 2, 0):
            assert s.state.hand is not None
            s.act(seat, "check" if s.state.hand.phase != 3 else "discard")
    s.show_all()
    pot = next(e for e in s.log if isinstance(e, PotAwarded))
    assert pot.shares == (Share(1, 3),)


def test_the_table_may_rank_five_of_a_kind_below_a_straight_flush() -> None:
    config = TableConfig(
        game=SPIT_IN_THE_OCEAN, seats=6, ante=1, five_of_a_kind_beats_straight_flush=False
    )
    s = Scenario(
        config, THREE, hole={1: "7c 7d Kd Ks", 2: "9h Th Jh Qh", 0: "2c 3d 4s 5h"}, boards=["7h"]
    ).start()
    for _ in range(3):  # bet, draw (stand pat), bet
        for seat in (1, 2, 0):
            assert s.state.hand is not None
            s.act(seat, "check" if s.state.hand.phase != 3 else "discard")
    s.show_all()
    pot = next(e for e in s.log if isinstance(e, PotAwarded))
    assert pot.shares == (Share(2, 3),)


def test_when_the_stub_runs_out_the_earlier_discards_are_reshuffled_but_not_the_drawers_own() -> (
    None
):
    config = TableConfig(game=SPIT_IN_THE_OCEAN, seats=10, ante=1)
    s = Scenario(config, [100] * 10).start()  # 41 cards out, 11 left
    for seat in [*range(1, 10), 0]:
        s.act(seat, "check")
    order = [*range(1, 10), 0]
    hand = s.state.hand
    assert hand is not None
    s.act(order[0], "discard", cards_=" ".join(hand.player(order[0]).cards))  # stub 7
    assert s.state.hand is not None
    s.act(order[1], "discard", cards_=" ".join(s.state.hand.player(order[1]).cards))  # stub 3
    third = s.state.hand.player(order[2]).cards
    s.do(Act(order[2], "discard", None, third))
    request = pending_chance(s.state)
    assert isinstance(request, NeedReshuffle) and request.stub == 3
    assert set(request.discards).isdisjoint(third) and len(request.discards) == 8
    s.settle()
    assert len(s.state.hand.player(order[2]).cards) == 4


def test_timeout_in_a_draw_stands_pat() -> None:
    s = Scenario(SPIT, THREE, boards=["7h"]).start()
    for seat in (1, 2, 0):
        s.act(seat, "check")
    events = s.do(TimeOut(1))
    assert events[0] == CardsDiscarded(1, (), False)


def test_six_card_open_draw_deals_six_down_then_a_draw_of_up_to_four_before_any_betting() -> None:
    s = Scenario(SIX, THREE, hole={1: "2c 3c 4c 5c 6c 7c"}).start()
    assert s.state.hand is not None
    assert len(s.state.hand.player(1).cards) == 6
    legal = legal_actions(s.state, 1)
    assert legal.actions == {"discard"} and legal.max_discards == 4
    with pytest.raises(InvalidAction, match="the draw limit is 4"):
        s.act(1, "discard", cards_="2c 3c 4c 5c 6c")


def test_six_card_every_remaining_player_discards_exactly_one_card_face_up() -> None:
    s = Scenario(SIX, THREE, hole={1: "2c 3c 4c 5c 6c 7c"}).start()
    for seat in (1, 2, 0):
        s.act(seat, "discard")
    for seat in (1, 2, 0):
        s.act(seat, "check")
    legal = legal_actions(s.state, 1)
    assert legal.actions == {"open-discard"} and legal.min_discards == legal.max_discards == 1
    with pytest.raises(InvalidAction, match="exactly 1"):
        s.act(1, "open-discard", cards_="2c 3c")
    s.act(1, "open-discard", cards_="7c")
    spectator = view_for(s.state, None).seats[1]
    assert spectator.open_discards == ("7c",) and spectator.cards == (HIDDEN,) * 5


def test_six_card_open_discard_timeout_throws_the_lowest_card() -> None:
    s = Scenario(SIX, THREE, hole={1: "Kc 3d 4c 5c 3c 7c"}).start()
    for seat in (1, 2, 0):
        s.act(seat, "discard")
    for seat in (1, 2, 0):
        s.act(seat, "check")
    events = s.do(TimeOut(1))
    assert events[0] == CardsDiscarded(1, ("3c",), True)


def test_six_card_final_hands_are_five_cards_and_the_best_high_hand_wins() -> None:
    s = Scenario(SIX, THREE, hole={1: "Ac Ad As Kc Kd 2h", 2: "2c 3d 4s 6h 8c 9d"}).start()
    for seat in (1, 2, 0):
        s.act(seat, "discard")
    for seat in (1, 2, 0):
        s.act(seat, "check")
    s.act(1, "open-discard", cards_="2h")
    s.act(2, "open-discard", cards_="9d")
    assert s.state.hand is not None
    s.act(0, "open-discard", cards_=s.state.hand.player(0).cards[0])
    for seat in (1, 2, 0):
        s.act(seat, "check")
    assert all(len(p.cards) == 5 for p in s.state.hand.players)
    s.show_all()
    pot = next(e for e in s.log if isinstance(e, PotAwarded))
    assert pot.shares == (Share(1, 3),)
