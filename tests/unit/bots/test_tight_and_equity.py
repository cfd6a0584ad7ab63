"""`tight` and `equity`: strong hands bet, weak hands give up, draws keep what plays."""

from __future__ import annotations

import random

import pytest

from services.bots.policies import make_policy
from services.bots.ranker import EvaluatorRanker
from services.bots.strength import equity, preflop_strength
from services.bots.view import Kind, Variant

from .views import checked_to, drawing, facing_bet, open_discarding


def test_chen_strength_orders_starting_hands() -> None:
    assert preflop_strength(["As", "Ad"]) == 1.0
    assert preflop_strength(["As", "Ks"]) > preflop_strength(["Jc", "Td"])
    assert preflop_strength(["Jc", "Td"]) > preflop_strength(["7c", "2d"])


def test_pocket_aces_have_about_85_percent_against_one_random_hand(ranker: EvaluatorRanker) -> None:
    view = facing_bet(["As", "Ad"])
    share = equity(view, ranker, random.Random(5), 2000)
    assert 0.81 <= share <= 0.89


def test_hilo_equity_counts_the_low_half(ranker: EvaluatorRanker) -> None:
    nut_low = facing_bet(["Ac", "2d"], ["3h", "4s", "8c"], variant=Variant.HOLDEM_HILO)
    no_low = facing_bet(["Kc", "Qd"], ["3h", "4s", "8c"], variant=Variant.HOLDEM_HILO)
    rng = random.Random(6)
    assert equity(nut_low, ranker, rng, 600) > equity(no_low, ranker, rng, 600) + 0.2


@pytest.mark.parametrize("name", ["tight", "equity"])
def test_strong_policies_fold_trash_facing_a_big_bet(ranker: EvaluatorRanker, name: str) -> None:
    policy = make_policy(name, ranker)
    view = facing_bet(["7c", "2d"], ["As", "Kh", "Qd"], to_call=100, pot=120, opponents=2)
    assert policy.choose(view, random.Random(7)).kind is Kind.FOLD


@pytest.mark.parametrize("name", ["tight", "equity"])
def test_strong_policies_raise_the_nuts(ranker: EvaluatorRanker, name: str) -> None:
    policy = make_policy(name, ranker)
    view = facing_bet(["As", "Ks"], ["Qs", "Js", "Ts"], to_call=20, pot=60)
    action = policy.choose(view, random.Random(8))
    assert action.kind is Kind.RAISE and 40 <= action.amount <= 1000


def test_tight_raises_aces_and_folds_seven_deuce_preflop(ranker: EvaluatorRanker) -> None:
    policy = make_policy("tight", ranker)
    assert policy.choose(facing_bet(["As", "Ad"], to_call=10, pot=15), random.Random()).kind is (
        Kind.RAISE
    )
    assert policy.choose(facing_bet(["7c", "2d"], to_call=10, pot=15), random.Random()).kind is (
        Kind.FOLD
    )


@pytest.mark.parametrize("name", ["tight", "equity"])
def test_spit_draw_keeps_the_pair_and_the_wilds(ranker: EvaluatorRanker, name: str) -> None:
    policy = make_policy(name, ranker)
    # The spit card is a nine, so nines are wild.
    pair = drawing(
        ["Ah", "Ad", "Kc", "4c"], ["9s"], variant=Variant.SPIT, forbidden=["9s"], wild_rank="9"
    )
    action = policy.choose(pair, random.Random(10))
    assert action.kind is Kind.DISCARD
    assert "4c" in action.cards and not {"Ah", "Ad"} & set(action.cards)
    wild = drawing(["Qh", "9h", "6c", "3d"], ["9s"], variant=Variant.SPIT, wild_rank="9")
    assert "9h" not in policy.choose(wild, random.Random(10)).cards


@pytest.mark.parametrize("name", ["tight", "equity"])
def test_spit_draw_respects_a_two_card_limit(ranker: EvaluatorRanker, name: str) -> None:
    policy = make_policy(name, ranker)
    view = drawing(
        ["Kh", "8d", "5c", "2s"], ["Ts"], variant=Variant.SPIT, max_cards=2, wild_rank="T"
    )
    action = policy.choose(view, random.Random(11))
    assert len(action.cards) <= 2 and set(action.cards) <= set(view.hole)


@pytest.mark.parametrize("name", ["tight", "equity"])
def test_six_card_draw_stands_pat_on_a_made_straight(ranker: EvaluatorRanker, name: str) -> None:
    policy = make_policy(name, ranker)
    view = drawing(["9s", "Td", "Jc", "Qh", "Kd", "2c"], variant=Variant.SIX_CARD, max_cards=4)
    action = policy.choose(view, random.Random(12))
    assert action.kind is Kind.DISCARD
    assert set(action.cards) <= {"2c"}


@pytest.mark.parametrize("name", ["tight", "equity"])
def test_open_discard_exposes_the_card_the_hand_needs_least(
    ranker: EvaluatorRanker, name: str
) -> None:
    policy = make_policy(name, ranker)
    view = open_discarding(["Ks", "Kd", "Kc", "7h", "7d", "2c"])
    assert policy.choose(view, random.Random(13)).cards == ("2c",)


def test_equity_bot_value_bets_a_set_when_checked_to(ranker: EvaluatorRanker) -> None:
    policy = make_policy("equity", ranker)
    view = checked_to(["8s", "8d"], ["8c", "Kh", "3d"])
    assert policy.choose(view, random.Random(14)).kind is Kind.BET
