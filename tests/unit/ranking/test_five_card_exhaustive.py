import itertools

import numpy as np
import numpy.typing as npt
import pytest

from services.ranking.batch import Values, eval5_batch
from services.ranking.encoding import FAST_INTS
from services.ranking.fast import eval5_ints
from services.ranking.values import Category, category_of, ranks_of
from tests.unit.ranking.reference import ref5, strength

KNOWN_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.ONE_PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}

Hands = npt.NDArray[np.uint8]  # one row of five card numbers per hand


@pytest.fixture(scope="module")
def every_hand() -> Hands:
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 5))
    return np.fromiter(flat, dtype=np.uint8, count=2_598_960 * 5).reshape(-1, 5)


@pytest.fixture(scope="module")
def every_value(every_hand: Hands) -> Values:
    return eval5_batch(every_hand)


def test_every_five_card_hand_falls_in_the_known_category_counts(every_value: Values) -> None:
    strengths, counts = np.unique(every_value >> 20, return_counts=True)
    found = {Category(int(s) // 2): int(n) for s, n in zip(strengths, counts, strict=True)}
    assert found == KNOWN_COUNTS


def test_five_card_values_form_exactly_7462_classes(every_value: Values) -> None:
    assert len(np.unique(every_value)) == 7_462


def test_class_order_matches_the_reference_evaluator(
    every_hand: Hands, every_value: Values
) -> None:
    values, first = np.unique(every_value, return_index=True)
    for value, row in zip(values.tolist(), first.tolist(), strict=True):
        cards = [(c % 13, c // 13) for c in every_hand[row].tolist()]
        category, ranks = ref5(cards)
        assert (category_of(value), ranks_of(value)) == (category, ranks)
    # Ascending values must mean ascending reference strength.
    keys = [ref5([(c % 13, c // 13) for c in every_hand[r].tolist()]) for r in first.tolist()]
    assert keys == sorted(keys, key=lambda k: (strength(k[0]), k[1]))


@pytest.mark.slow
def test_single_hand_path_agrees_with_batch_on_every_hand(
    every_hand: Hands, every_value: Values
) -> None:
    ints = FAST_INTS
    single = [
        eval5_ints(ints[a], ints[b], ints[c], ints[d], ints[e])
        for a, b, c, d, e in every_hand.tolist()
    ]
    assert single == every_value.tolist()
