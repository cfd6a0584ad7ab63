"""Subset sums over all five-card hands, and the inclusion-exclusion that turns them into
the draws of one hold.

`histograms(values)[k][r]` counts, by class, the hands that contain the k-card set of colex
rank r. For a dealt hand, the final hands of a hold H are the hands that contain H and none
of the discards D, so by inclusion-exclusion their class counts are
sum over S in D of (-1)^|S| * histogram(H + S): every hold of one dealt hand reads only the
32 subsets of those five cards. `MOBIUS[h, x]` is that sign for hold mask h and subset mask x
(bit i: position i), so totals = values_of_the_32_subsets @ MOBIUS.T.
"""

from __future__ import annotations

import numpy as np

from services.videopoker_analysis.combos import (
    BINOM,
    DECK,
    Ints,
    sorted_rank,
    subset_positions,
    subset_rank,
    subset_rank_columns,
)

MASKS = 32
POPCOUNT: Ints = np.array([bin(mask).count("1") for mask in range(MASKS)], dtype=np.int64)
MOBIUS: Ints = np.array(
    [
        [(-1) ** (POPCOUNT[x] - POPCOUNT[h]) if x & h == h else 0 for x in range(MASKS)]
        for h in range(MASKS)
    ],
    dtype=np.int64,
)
# Cards each hold draws, and the number of equally likely draws from the 47 undealt cards.
DRAWN: Ints = 5 - POPCOUNT
DRAWS: Ints = BINOM[47, DRAWN]
# Every hold's EV compared on one denominator: LCM of C(47, 0..5) = 7,669,695.
COMMON = int(np.lcm.reduce(BINOM[47, :6]))
SCALE: Ints = COMMON // DRAWS


def mask_positions(mask: int) -> tuple[int, ...]:
    return tuple(i for i in range(5) if mask >> i & 1)


def subset_ranks(hands: Ints) -> Ints:
    """Colex rank of each of the 32 subsets (by position mask) of each ascending hand;
    column `mask` holds the rank within subsets of that size."""
    out = np.zeros((len(hands), MASKS), dtype=np.int64)
    for mask in range(1, MASKS):
        out[:, mask] = sorted_rank(hands[:, list(mask_positions(mask))])
    return out


def histograms(hands: Ints, classes: Ints, count: int) -> list[Ints]:
    """Per subset size k = 0..4, an array (C(52, k), count) of class counts over the hands
    containing each k-set. `hands` ascending rows."""
    columns = subset_rank_columns(hands)
    tables = []
    for size in range(5):
        table = np.zeros(int(BINOM[DECK, size]) * count, dtype=np.int64)
        for positions in subset_positions(5)[size]:
            index = subset_rank(columns, positions, len(hands)) * count + classes
            table += np.bincount(index, minlength=len(table))
        tables.append(table.reshape(-1, count))
    return tables


def weighted_sums(hands: Ints, weights: Ints) -> list[Ints]:
    """Per subset size k = 0..4, the sum of `weights` (integers, exact below 2^53) over the
    hands containing each k-set."""
    columns = subset_rank_columns(hands)
    sums = []
    for size in range(5):
        total = np.zeros(int(BINOM[DECK, size]), dtype=np.float64)
        for positions in subset_positions(5)[size]:
            ranks = subset_rank(columns, positions, len(hands))
            total += np.bincount(ranks, weights=weights, minlength=len(total))
        sums.append(np.rint(total).astype(np.int64))
    return sums


def gather(tables: list[Ints], full: Ints, ranks: Ints) -> Ints:
    """Values of the 32 subsets of each hand: `tables[k]` for sizes 0..4, `full[rank]` for
    the hand itself. Returns shape (hands, 32, ...)."""
    columns = []
    for mask in range(MASKS):
        size = int(POPCOUNT[mask])
        source = full if size == 5 else tables[size]
        columns.append(source[ranks[:, mask]])
    return np.stack(columns, axis=1)
