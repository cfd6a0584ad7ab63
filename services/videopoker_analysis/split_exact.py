"""The exact return of the Split Card feature under optimal play.

The feature's round is one of two kinds (services.games.videopoker.split):

- with probability `in_deal` the split card is one of the five dealt: the deal is a split
  card (base x, one of three second cards) and four other cards, every (x, second, four)
  equally likely, and the draw decks hold no split card;
- otherwise no split card is dealt, the five dealt cards are any five, and the undealt split
  card may come on the draw (`kernels.stub_totals`).

Each kind's best-hold value is averaged over every deal exactly: the second over the 134,459
suit classes of five cards, the first over the 39 club splits (suits are symmetric) and, for
each, the four other cards up to the permutations of the three other suits. The line is paid
as for 5 coins and costs 10, so the return per coin is half the 5-coin value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from services.games.videopoker.paytables import PAYTABLES, SPLIT_COINS
from services.videopoker_analysis.combos import (
    BINOM,
    DECK,
    RANKS,
    SUITS,
    Ints,
    all_hands,
    combinations_array,
)
from services.videopoker_analysis.exact import Progress
from services.videopoker_analysis.kernels import (
    STUB_WEIGHT,
    split_totals,
    standard_totals,
    stub_totals,
)
from services.videopoker_analysis.split_tables import SPLITS, split_cards, split_tables
from services.videopoker_analysis.subsets import COMMON, MASKS, SCALE
from services.videopoker_analysis.symmetry import deal_classes, suit_masks
from services.videopoker_analysis.tables import stub_sums, tables


@dataclass(frozen=True)
class SplitAnalysis:
    paytable: str
    in_deal: Fraction
    dealt_value: Fraction  # per coin at 5-coin pays, when the split card is dealt
    undealt_value: Fraction  # per coin at 5-coin pays, when it is not
    return_: Fraction  # per coin bet (10 coins a line)


def _split_hold_mask(rest: int) -> int:
    """The five-position mask of holding the split (position 4) and `rest` of positions 0..3."""
    return rest | 1 << 4


SPLIT_HELD = np.array([_split_hold_mask(rest) for rest in range(16)])


def _others(base: int) -> tuple[Ints, Ints]:
    """The four-card sets beside a club base, one per class under permutations of the
    diamonds, hearts and spades, and each class's size."""
    fours = combinations_array(DECK, 4)
    fours = fours[~(fours == base).any(axis=1)]
    masks = suit_masks(fours)
    others = -np.sort(-masks[:, 1:], axis=1)
    key = masks[:, 0]
    for column in range(SUITS - 1):
        key = key << RANKS | others[:, column]
    _keys, first, counts = np.unique(key, return_index=True, return_counts=True)
    return fours[first], counts.astype(np.int64)


def dealt_total(paytable: str, progress: Progress | None = None) -> tuple[int, int]:
    """Sum over every dealt split deal of its best hold's total on COMMON, and the deals."""
    sums, own = tables(paytable, True).pay_sums(SPLIT_COINS)
    split = split_tables(paytable)
    total, classes_seen = 0, 0
    for s in range(SPLITS):
        base, _second = split_cards(s)
        others, weights = _others(base)
        bases = np.full(len(others), base)
        # The holds that discard the split card are the standard holds of its base and the
        # four others that leave the base's position out.
        five = np.sort(np.hstack([others, bases[:, None]]), axis=1)
        at = np.argmax(five == base, axis=1)
        plain = standard_totals(sums, own, five, ordered=True) * SCALE
        plain[(np.arange(MASKS)[None, :] >> at[:, None] & 1) == 1] = -np.inf
        held = split_totals(split, others, bases, np.full(len(others), s % 3)) * SCALE[SPLIT_HELD]
        best = np.maximum(plain.max(axis=1), held.max(axis=1)).astype(np.int64)
        total += int((best * weights).sum())
        classes_seen += len(others)
        if progress:
            progress(s + 1, SPLITS)
    return total, classes_seen


def undealt_total(
    paytable: str, progress: Progress | None = None, chunk: int = 4096
) -> tuple[int, int]:
    """Sum over every five-card deal of its best hold's total (x141) on COMMON."""
    sums, own = tables(paytable, True).pay_sums(SPLIT_COINS)
    gain_sums, gain = stub_sums(paytable)
    split = split_tables(paytable)
    deals = deal_classes(all_hands())
    total = 0
    n = len(deals.hands)
    for start in range(0, n, chunk):
        part = deals.hands[start : start + chunk]
        scaled = stub_totals(sums, own, gain_sums, gain, split, part, ordered=True) * SCALE
        best = scaled.max(axis=1).astype(np.int64)
        total += int((best * deals.weights[start : start + chunk]).sum())
        if progress:
            progress(min(start + chunk, n), n)
    return total, n


def combine(paytable: str, dealt: int, undealt: int) -> SplitAnalysis:
    """The feature's return from the two kinds' totals."""
    in_deal = PAYTABLES[paytable].split.in_deal
    dealt_value = Fraction(dealt, COMMON * SPLITS * int(BINOM[DECK - 1, 4]))
    undealt_value = Fraction(undealt, STUB_WEIGHT * COMMON * int(BINOM[DECK, 5]))
    value = in_deal * dealt_value + (1 - in_deal) * undealt_value
    return SplitAnalysis(paytable, in_deal, dealt_value, undealt_value, value / 2)


def analyze_split(paytable: str, progress: Progress | None = None) -> SplitAnalysis:
    dealt, _ = dealt_total(paytable, progress)
    undealt, _ = undealt_total(paytable, progress)
    return combine(paytable, dealt, undealt)
