"""The one-deal-at-a-time Monte Carlo agrees with the vectorised one on every deal shape it
takes, and keeps its promises (seeded, common deals, a clear error for an impossible deal)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from services.ranking import quick_equity as q
from services.ranking.draw_equity import keep_equities as vectorised_keep_equities
from services.ranking.encoding import FAST_INTS
from services.ranking.fast import eval5_ints, eval6_ints
from services.ranking.sampling import Scoring

RANKS, SUITS = "23456789TJQKA", "cdhs"


def cards(text: str) -> list[int]:
    return [RANKS.index(c[0]) + 13 * SUITS.index(c[1]) for c in text.split()]


SAMPLES = 25_000
# keeps, hole size, board, board size, opponents, opponent hole, mode, the same as Scoring
SHAPES = {
    "hold'em pre-flop, heads-up": (["Ah Kh"], 2, "", 5, 1, 2, q.HIGH, Scoring(7)),
    "hold'em flop, three opponents": (["Ah Kh"], 2, "2h 7h Qc", 5, 3, 2, q.HIGH, Scoring(7)),
    "hold'em river": (["9s 9d"], 2, "2h 7h Qc 9c Kd", 5, 2, 2, q.HIGH, Scoring(7)),
    "hi-lo turn": (["Ad 2c"], 2, "3h 7s Kd 8c", 5, 2, 2, q.HIGH_LOW, Scoring(7, low=True)),
    "spit draw": (
        ["Ad 2c 5s 5h", "5s 5h", "Ad 2c"], 4, "7d", 1, 2, 4, q.WILD,
        Scoring(5, board_rank_wild=True),
    ),
    "spit, spit card to come, five of a kind below": (
        ["Ad 2c 5s 5h"], 4, "", 1, 3, 4, q.WILD_BELOW,
        Scoring(5, board_rank_wild=True, five_kind_below=True),
    ),
    "six-card draw": (
        ["Ad Kd Qd 5s 5h 9c", "5s 5h", "Ad Kd Qd"], 6, "", 0, 3, 6, q.HIGH, Scoring(6),
    ),
    "five natural cards": (["Ad Kd Qd 5s 5h"], 5, "", 0, 2, 5, q.HIGH, Scoring(5)),
}  # fmt: skip


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_agrees_with_the_vectorised_monte_carlo(shape: str) -> None:
    keeps_text, hole, board_text, board_size, opponents, their_hole, mode, scoring = SHAPES[shape]
    keeps = [cards(k) for k in keeps_text]
    board = cards(board_text)
    known = sorted({c for k in keeps for c in k} | set(board))
    assert q.supports(mode, scoring.hand_size)
    quick = q.keep_equities(
        keeps, hole, board, board_size, known, opponents, their_hole, mode, SAMPLES, 7
    )
    reference = vectorised_keep_equities(
        keeps, hole, board, board_size, known, opponents, their_hole, scoring,
        samples=SAMPLES, seed=11,
    )  # fmt: skip
    for mine, theirs in zip(quick, reference, strict=True):
        # Two independent runs: a share's standard error is at most 0.5 / sqrt(samples).
        assert abs(mine - theirs) < 4.5 * math.sqrt(2) * 0.5 / math.sqrt(SAMPLES), shape


def test_the_same_seed_gives_the_same_answer_and_another_seed_another() -> None:
    args = ([cards("Ah Kh")], 2, cards("2h 7h Qc"), 5, cards("Ah Kh 2h 7h Qc"), 2, 2, q.HIGH, 300)
    assert q.keep_equities(*args, 5) == q.keep_equities(*args, 5)
    assert q.keep_equities(*args, 5) != q.keep_equities(*args, 6)


def test_a_pat_hand_that_cannot_lose_wins_every_deal() -> None:
    # A royal flush on the board's river: every hand plays it, so every deal is a tie.
    board = cards("Ah Kh Qh Jh Th")
    shares = q.keep_equities([cards("2c 3d")], 2, board, 5, [], 3, 2, q.HIGH, 500, 1)
    assert shares == [0.25]
    mine = cards("As Ks Qs Js Ts 9s")
    assert q.keep_equities([mine], 6, [], 0, mine, 2, 6, q.HIGH, 500, 1) == [1.0]


def test_a_deal_larger_than_the_deck_is_refused() -> None:
    with pytest.raises(ValueError, match="deck holds"):
        q.keep_equities([cards("Ah Kh")], 2, [], 5, [], 30, 2, q.HIGH, 10, 1)


def test_shapes_outside_its_evaluators_are_left_to_the_vectorised_path() -> None:
    assert not q.supports(q.HIGH, 8)
    assert not q.supports(q.HIGH_LOW, 6)
    assert not q.supports(q.WILD, 7)


def test_six_card_values_are_the_best_five_of_six() -> None:
    rng = random.Random(3)
    for _ in range(5_000):
        hand = [FAST_INTS[c] for c in rng.sample(range(52), 6)]
        best = max(eval5_ints(*five) for five in itertools.combinations(hand, 5))
        assert eval6_ints(*hand) == best
