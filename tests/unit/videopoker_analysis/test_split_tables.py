"""The six-card table is the rules package's best five of six, for splits of every suit."""

from __future__ import annotations

import numpy as np
import pytest

from services.games.videopoker.hands import best_five, ladder
from services.games.videopoker.paytables import PAYTABLES
from services.games.videopoker.split import OFFSETS
from services.videopoker_analysis.combos import rank_of
from services.videopoker_analysis.split_tables import (
    split_cards,
    split_id,
    split_tables,
    swap_to_clubs,
)


@pytest.mark.slow
@pytest.mark.parametrize("paytable", sorted(PAYTABLES))
def test_the_best_of_six_matches_the_pure_rules_for_random_split_hands(paytable: str) -> None:
    tables = split_tables(paytable)
    rules = ladder(PAYTABLES[paytable], True)
    rng = np.random.default_rng(7)
    for _ in range(400):
        base = int(rng.integers(52))
        offset = int(rng.integers(3))
        second = base // 13 * 13 + (base % 13 + OFFSETS[offset]) % 13
        others = rng.choice([c for c in range(52) if c != base], 4, replace=False)
        cards = [base, second, *others]
        expected = best_five([(c % 13, c // 13) for c in cards], rules).hand
        swapped = swap_to_clubs(np.array([others]), np.array([[base // 13]]))
        found = tables.best[split_id(base % 13, offset), rank_of(swapped)[0]]
        assert tables.classes.hands[found] == expected, (cards, expected)


def test_the_canonical_splits_are_the_club_bases_with_their_three_second_cards() -> None:
    assert [split_cards(s) for s in range(3)] == [(0, 12), (0, 0), (0, 1)]  # 2c|Ac 2c|2c 2c|3c
    assert split_cards(38) == (12, 0)  # Ac|2c


@pytest.mark.slow
def test_four_cards_holding_the_base_are_left_out() -> None:
    tables = split_tables("jacks-9-6")
    assert tables.valid.sum(axis=1).tolist() == [249_900] * 39  # C(51, 4) beside each base
    assert (tables.sums[4][~tables.valid] == 0).all()
