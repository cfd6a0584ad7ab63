"""The vectorised classes are the rules package's classifier, on every hand."""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import pytest

from services.games.videopoker.hands import best_five, ladder
from services.games.videopoker.paytables import PAYTABLES, Hand
from services.videopoker_analysis.classes import RANK_KEYS, SPACE, classes
from services.videopoker_analysis.combos import all_hands, combinations_array, rank_of

TABLES = sorted(PAYTABLES)


def test_the_rank_keys_give_every_multiset_of_five_ranks_its_own_sum() -> None:
    sums = [
        int(RANK_KEYS[list(ranks)].sum()) for ranks in combinations_with_replacement(range(13), 5)
    ]
    assert len(sums) == 6188 and len(set(sums)) == 6188 and max(sums) < SPACE


def test_colex_ranks_number_the_hands_in_order() -> None:
    hands = all_hands()
    assert hands.shape == (2_598_960, 5)
    assert (rank_of(hands[::997]) == np.arange(0, len(hands), 997)).all()
    shuffled = np.random.default_rng(1).permuted(hands[:5000], axis=1)
    assert (rank_of(shuffled) == np.arange(5000)).all()
    assert (rank_of(combinations_array(52, 3)) == np.arange(22_100)).all()


@pytest.mark.parametrize(
    ("paytable", "counts"),
    [
        (
            "jacks-9-6",
            [4, 36, 624, 3744, 5108, 10200, 54912, 123552, 337920, 2062860],
        ),
        (
            "deuces-wild",
            [4, 48, 480, 624, 2068, 31552, 12672, 14472, 62232, 355080, 2119728],
        ),
    ],
)
def test_every_hand_is_counted_in_its_published_category(paytable: str, counts: list[int]) -> None:
    table = classes(paytable, False)
    found = np.bincount(table.of_cards(all_hands()), minlength=table.count)
    assert found.tolist() == counts


def _pure(cards: np.ndarray, paytable: str, split: bool) -> Hand:
    return best_five(
        [(int(c) % 13, int(c) // 13) for c in cards], ladder(PAYTABLES[paytable], split)
    ).hand


@pytest.mark.parametrize("paytable", TABLES)
@pytest.mark.parametrize("split", [False, True])
def test_the_table_agrees_with_the_pure_classifier_on_random_hands_and_repeated_cards(
    paytable: str, split: bool
) -> None:
    rng = np.random.default_rng(len(paytable) + split)
    table = classes(paytable, split)
    hands = np.array([rng.choice(52, 5, replace=False) for _ in range(1500)])
    # A split card's hands may hold one card twice.
    doubled = hands.copy()
    doubled[:, 4] = doubled[:, 0]
    for rows in (hands, doubled):
        found = table.of_cards(rows)
        assert [table.hands[i] for i in found] == [_pure(row, paytable, split) for row in rows]
