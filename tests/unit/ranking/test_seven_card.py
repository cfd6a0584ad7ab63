import random
from collections.abc import Sequence

import numpy as np
import pytest

from services.ranking.batch import eval7_batch
from services.ranking.encoding import FAST_INTS
from services.ranking.fast import eval7_ints
from services.ranking.values import category_of, ranks_of
from tests.unit.ranking.reference import ref_best


def _sample(seed: int, n: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [rng.sample(range(52), 7) for _ in range(n)]


def _eval7(hand: Sequence[int]) -> int:
    # Seven named arguments, not a star: eval7_ints takes its lookup tables as defaults after them.
    a, b, c, d, e, f, g = (FAST_INTS[card] for card in hand)
    return eval7_ints(a, b, c, d, e, f, g)


@pytest.mark.slow
def test_seven_card_values_match_brute_force_best_of_21() -> None:
    for hand in _sample(7, 6_000):
        value = _eval7(hand)
        expected = ref_best([(c % 13, c // 13) for c in hand])
        assert (category_of(value), ranks_of(value)) == expected, hand


def test_seven_card_flushes_and_straight_flushes_match_brute_force() -> None:
    # Random hands rarely hold flushes; force five to seven cards of one suit.
    rng = random.Random(11)
    for _ in range(2_000):
        suit = rng.randrange(4)
        suited = rng.sample(range(suit * 13, suit * 13 + 13), rng.randint(5, 7))
        rest = rng.sample([c for c in range(52) if c // 13 != suit], 7 - len(suited))
        hand = suited + rest
        value = _eval7(hand)
        assert (category_of(value), ranks_of(value)) == ref_best([(c % 13, c // 13) for c in hand])


@pytest.mark.slow
def test_batch_and_single_hand_paths_agree() -> None:
    hands = np.array(_sample(3, 100_000), dtype=np.uint8)
    single = [_eval7(row) for row in hands.tolist()]
    assert eval7_batch(hands).tolist() == single
