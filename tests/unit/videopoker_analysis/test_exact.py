"""Exact returns under optimal play: the published figures, reproduced over every deal."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from services.games.videopoker.paytables import PAYTABLES, Hand
from services.games.videopoker.returns import RETURNS
from services.videopoker_analysis.combos import combinations_array
from services.videopoker_analysis.exact import analyze
from services.videopoker_analysis.kernels import split_totals, standard_totals
from services.videopoker_analysis.split_exact import SPLIT_HELD, _others, analyze_split
from services.videopoker_analysis.split_tables import split_cards, split_tables
from services.videopoker_analysis.subsets import SCALE
from services.videopoker_analysis.tables import tables


@pytest.mark.slow
@pytest.mark.parametrize(
    ("paytable", "published"),
    [("jacks-9-6", 99.5439), ("deuces-wild", 100.7620), ("double-double-bonus-9-6", 98.9808)],
)
def test_the_return_under_optimal_play_is_the_published_one(
    paytable: str, published: float
) -> None:
    analysis = analyze(paytable)
    assert round(float(analysis.return_) * 100, 4) == published
    assert analysis.return_ == RETURNS[paytable].standard  # what ListPaytables lists
    assert analysis.deals == 134_459
    assert sum(analysis.frequencies.values()) == 1
    pays = {line.hand: line.pays_at_max for line in PAYTABLES[paytable].lines}
    paid = sum(f * pays.get(hand, 0) for hand, f in analysis.frequencies.items())
    assert paid == analysis.return_


@pytest.mark.slow
def test_jacks_or_better_final_hands_come_as_often_as_published() -> None:
    """wizardofodds.com, Jacks or Better 9/6, optimal strategy, probabilities to 6 places."""
    published = {
        Hand.ROYAL_FLUSH: 0.000025,
        Hand.STRAIGHT_FLUSH: 0.000109,
        Hand.FOUR_OF_A_KIND: 0.002363,
        Hand.FULL_HOUSE: 0.011512,
        Hand.FLUSH: 0.011015,
        Hand.STRAIGHT: 0.011229,
        Hand.THREE_OF_A_KIND: 0.074449,
        Hand.TWO_PAIR: 0.129279,
        Hand.JACKS_OR_BETTER: 0.214585,
        Hand.NOTHING: 0.545435,
    }
    found = analyze("jacks-9-6").frequencies
    assert {hand: round(float(f), 6) for hand, f in found.items()} == published


@pytest.mark.slow
def test_a_split_cards_classes_of_four_others_sum_as_every_one_of_them() -> None:
    """The dealt-split analysis values one four-card set per class under permutations of the
    three other suits: for one split card, the weighted classes give the same total as all
    249,900 sets one by one."""
    split = 3 * 11 + 2  # Kc|Ac
    base, _ = split_cards(split)
    sums, own = tables("jacks-9-6", True).pay_sums(10)
    splits = split_tables("jacks-9-6")

    def best(others: np.ndarray) -> np.ndarray:
        """Each deal's best hold: one not holding the split (masks 0-15 of the others) or
        one holding it."""
        bases = np.full(len(others), base)
        plain = standard_totals(sums, own, np.hstack([others, bases[:, None]])) * SCALE
        held = split_totals(splits, others, bases, np.full(len(others), split % 3))
        top = np.maximum(plain[:, :16].max(axis=1), (held * SCALE[SPLIT_HELD]).max(axis=1))
        return np.asarray(top, dtype=np.int64)

    everyone = combinations_array(52, 4)
    everyone = everyone[~(everyone == base).any(axis=1)]
    classes, weights = _others(base)
    assert weights.sum() == len(everyone) == 249_900 and len(classes) < 249_900 // 4
    assert int((best(classes) * weights).sum()) == int(best(everyone).sum())


@pytest.mark.slow
def test_the_split_card_features_return_is_the_published_figure() -> None:
    analysis = analyze_split("jacks-9-6")
    p = PAYTABLES["jacks-9-6"].split.in_deal
    assert analysis.return_ == (p * analysis.dealt_value + (1 - p) * analysis.undealt_value) / 2
    # docs/games/video-poker.md publishes this figure (83.1203%).
    assert analysis.return_ == Fraction(123606794759213, 148708227668000)
    assert analysis.return_ == RETURNS["jacks-9-6"].split
