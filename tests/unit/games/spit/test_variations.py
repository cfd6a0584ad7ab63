"""Bicycle's Spit and Speed (four piles and alternating colours are in the layout and play
tests)."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction
from services.games.spit import (
    HIDDEN,
    RULES,
    MoveToSpace,
    PlayCard,
    Slap,
    SpitConfig,
    Variation,
    execute,
)
from services.games.spit import events as ev
from services.games.spit.state import SpitState
from tests.unit.games.spit.support import Dealer, Table, position

BICYCLE = SpitConfig(variation=Variation.BICYCLE)
SPEED = SpitConfig(variation=Variation.SPEED)


def after(state: SpitState, seat: int, move: object) -> tuple[SpitState, list[ev.SpitEvent]]:
    return execute(state, c.Move(seat, move))


# --- Bicycle's Spit ------------------------------------------------------------------------------


def test_bicycle_an_emptied_row_space_is_filled_from_the_players_own_stock() -> None:
    state = position(
        (["7h", "5d", "5s", "5c"], ["2h", "2d", "3c", "3h"]),
        ["8c", "Jd"],
        spit=(["6c", "Kd"], ["Qh"]),
        config=BICYCLE,
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[:2] == [ev.CardPlayed(0, 0, 0, "7h"), ev.SlotFilled(0, 0, "6c")]
    assert RULES.redact(events[1], 1) == events[1]  # the row is face up: public


def test_bicycle_when_nobody_can_play_both_spit_from_their_stock_onto_their_own_pile() -> None:
    state = position(
        (["7h", "5d", "5s", "5c"], ["2h", "2d", "3c", "3h"]),
        ["8c", "Jd"],
        spit=(["2s", "6c"], ["Qh", "Ks"]),
        config=BICYCLE,
    )
    _, events = after(state, 0, PlayCard(0, 0))  # 2s fills the space; nothing fits 7h or Jd
    assert events[2:] == [ev.Spat(0, 0, "6c"), ev.Spat(1, 1, "Qh")]


def test_bicycle_a_player_with_an_empty_stock_no_longer_spits_the_other_spits_alone() -> None:
    state = position(
        (["7h", "5d", "5s", "5c"], ["2h", "2d", "3c", "3h"]),
        ["8c", "Jd"],
        spit=([], ["Qh", "6s"]),
        config=BICYCLE,
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert [e for e in events if isinstance(e, ev.Spat)] == [
        ev.Spat(1, 1, "Qh"),
        ev.Spat(1, 1, "6s"),
    ]


def test_bicycle_the_first_player_with_no_cards_left_in_row_and_stock_wins() -> None:
    state = position(
        (["7h", "", "", ""], ["2h", "2d", "3c", "3h"]),
        ["8c", "Jd"],
        spit=([], ["Qh"]),
        config=replace_stake(BICYCLE, 5),
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.GameEnded(1, 0, "cleared", (10, 0), (105, 95))


def test_bicycle_stuck_with_both_stocks_empty_the_player_with_fewer_cards_wins() -> None:
    state = position(
        (["7h", "5d", "", ""], ["2h", "2d", "3c", ""]), ["8c", "Jd"], spit=([], []), config=BICYCLE
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.GameEnded(1, 0, "stuck", (0, 0), (100, 100))


def test_bicycle_stuck_with_equal_cards_is_a_drawn_game_and_the_stakes_go_back() -> None:
    state = position(
        (["7h", "5d", "5s", ""], ["2h", "2d", "", ""]),
        ["8c", "Jd"],
        spit=([], []),
        config=replace_stake(BICYCLE, 5),
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.GameEnded(1, None, "stuck", (5, 5), (100, 100))


def test_bicycle_has_no_spaces_to_move_into_and_no_slaps() -> None:
    state = position(
        (["7h", "", "5s", ""], ["2h", "2d", "3c", ""]), ["8c", "Jd"], spit=([], []), config=BICYCLE
    )
    with pytest.raises(InvalidAction, match="bicycle has no spaces"):
        RULES.decide(state, c.Move(0, MoveToSpace(0, 1)))
    with pytest.raises(InvalidAction, match="no slaps in bicycle"):
        RULES.decide(state, c.Move(0, Slap(0)))


# --- Speed -----------------------------------------------------------------------------------

HAND = ["7h", "5d", "5s", "5c", "4h"]
OTHER = ["2h", "2d", "3c", "3h", "4c"]


def test_speed_a_played_hand_card_is_replaced_from_the_players_own_draw_pile_unseen() -> None:
    state = position(
        (HAND, OTHER), ["8c", "Jd"], spit=(["Kd"], ["Qh"]), config=SPEED, stacks=(["9s"], ["Ks"])
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[:2] == [ev.CardPlayed(0, 0, 0, "7h"), ev.SlotFilled(0, 0, "Kd", private=True)]
    assert RULES.redact(events[1], 0) == events[1]
    assert RULES.redact(events[1], 1) == ev.SlotFilled(0, 0, HIDDEN, private=True)
    assert RULES.redact(events[1], None) == ev.SlotFilled(0, 0, HIDDEN, private=True)


def test_speed_when_nobody_can_play_one_card_from_each_side_stack_is_turned_up() -> None:
    state = position(
        (HAND, OTHER),
        ["8c", "Jd"],
        spit=(["Kd"], []),
        config=SPEED,
        stacks=(["6c", "Kh"], ["Qh", "As"]),
    )
    _, events = after(state, 0, PlayCard(0, 0))  # Kd fills the hand: nothing fits 7h or Jd
    assert events[2:] == [ev.Spat(None, 0, "6c"), ev.Spat(None, 1, "Qh")]


def test_speed_when_the_side_stacks_are_empty_the_middle_is_shuffled_into_new_ones() -> None:
    state = position((HAND, OTHER), ["Ad,9c,8c", "Qc,Jd"], spit=(["Kd"], []), config=SPEED)
    state, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.MiddleGathered(1, 1, (("Ad", "9c", "8c"), ("Qc",)))
    assert RULES.to_act(state) == frozenset() and RULES.deadlines(state) == []
    assert RULES.pending_chance(state) == c.OpenShuffle(
        1, "restock-1-pile-0", c.DeckSpec(cards=("8c", "9c", "Ad"))
    )
    table = Table(SPEED, Dealer(orders={"restock-1-pile-0": ["9c", "Ad", "8c"]}))
    table.state = state
    table.settle()
    dealt = [e for e in table.events if isinstance(e, ev.SideStackDealt)]
    assert dealt == [ev.SideStackDealt(1, 0, ("9c", "Ad", "8c")), ev.SideStackDealt(1, 1, ("Qc",))]
    assert all(
        RULES.redact(e, 0) == ev.SideStackDealt(1, e.stack, (HIDDEN,) * len(e.cards)) for e in dealt
    )
    flipped = [e for e in table.events if isinstance(e, ev.Spat)]
    assert flipped[:2] == [ev.Spat(None, 0, "9c"), ev.Spat(None, 1, "Qc")]


def test_speed_with_one_side_stack_empty_only_the_other_is_turned_up() -> None:
    state = position(
        (HAND, OTHER), ["8c", "Jd"], spit=(["Kd"], []), config=SPEED, stacks=([], ["Qh", "6s"])
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert [e for e in events if isinstance(e, ev.Spat)] == [ev.Spat(None, 1, "Qh")]  # Kd fits


def test_speed_the_first_player_to_empty_hand_and_draw_pile_wins() -> None:
    state = position(
        (["7h", "", "", "", ""], OTHER),
        ["8c", "Jd"],
        spit=([], ["Qh"]),
        config=SPEED,
        stacks=(["9s"], ["Ks"]),
    )
    _, events = after(state, 0, PlayCard(0, 0))
    assert events[-1] == ev.GameEnded(1, 0, "cleared", (0, 0), (100, 100))


def replace_stake(config: SpitConfig, stake: int) -> SpitConfig:
    from dataclasses import replace

    return replace(config, stake=stake)
