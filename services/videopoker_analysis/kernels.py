"""The hold totals of many dealt hands at once: the arithmetic the advisor and the exact
analyses share.

For a dealt hand and a hold, the total is the sum over every equally likely draw of what the
final hand pays (per coin); dividing by the number of draws gives the hold's expected value.
Each kernel returns totals for all holds of each row (column = hold mask over the row's
positions), read from the subset tables by inclusion-exclusion
(services.videopoker_analysis.subsets):

- `standard_totals`: no split card anywhere (the feature off, or a dealt split discarded);
- `stub_totals`: the feature on and no split card dealt, so the draw may bring the undealt
  split card: each undealt card is it with probability 1/47, each second card 1/3. The
  total over draws h of pay(h) + (1/141) * sum over drawn x of g(h, x), where g(h, x) =
  sum over second cards of pay(h with x split) - 3 pay(h), is
  (141 * T_pay + T_gain - sum over held x of T_g(x)) / 141: `stub_totals` returns 141 times
  the total (an integer);
- `split_totals`: a dealt split card held, with 0 to 4 of the other four cards.

Totals are summed in float64 matrix products: every value stays below 2^53, so they are
exact integers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from services.videopoker_analysis.combos import Ints, sorted_rank
from services.videopoker_analysis.split_tables import SplitTables, split_id, swap_to_clubs
from services.videopoker_analysis.subsets import MASKS, MOBIUS, mask_positions

STUB_WEIGHT = 47 * 3  # the undealt split card: 1/47 for each card, 1/3 for each second card
SIGNS = MOBIUS.T.astype(np.float64)
SIGNS4 = MOBIUS[:16, :16].T.astype(np.float64)  # the same signs over four positions
Floats = np.ndarray
Lookup = Callable[[int, Ints], Floats]  # (subset size, colex ranks) -> values


def mask_ranks(cards: Ints, ordered: bool = False) -> Ints:
    """(n, 2^k) colex rank of every subset (by mask over the row's own positions) of each row
    of k distinct cards. Rows in any order are sorted once and the masks mapped back;
    `ordered` rows (ascending) are read directly."""
    n, k = cards.shape
    order = None if ordered else np.argsort(cards, axis=1)
    ordered_cards = cards if order is None else np.take_along_axis(cards, order, axis=1)
    by_sorted = np.empty((n, 1 << k), dtype=np.int64)
    for mask in range(1 << k):
        by_sorted[:, mask] = sorted_rank(ordered_cards[:, list(mask_positions(mask))])
    if order is None:
        return by_sorted
    bits = np.left_shift(1, np.argsort(order, axis=1))  # where each column went
    where = np.stack(
        [bits[:, list(mask_positions(mask))].sum(axis=1) for mask in range(1 << k)], axis=1
    )
    return np.take_along_axis(by_sorted, where, axis=1)


def subset_values(lookup: Lookup, cards: Ints, ordered: bool = False) -> Floats:
    """(n, 2^k) values of every subset (by mask) of each row (see `mask_ranks`)."""
    return values_at(lookup, mask_ranks(cards, ordered))


def values_at(lookup: Lookup, ranks: Ints) -> Floats:
    out = np.empty(ranks.shape, dtype=np.float64)
    for mask in range(ranks.shape[1]):
        out[:, mask] = lookup(MASK_SIZES[mask], ranks[:, mask])
    return out


def table_lookup(tables: list[Ints]) -> Lookup:
    return lambda size, ranks: tables[size][ranks]


def standard_totals(sums: list[Ints], own: Ints, deals: Ints, ordered: bool = False) -> Floats:
    """(n, 32) pay totals of each hold of each five-card deal (`own`: every hand's pay)."""
    return subset_values(table_lookup([*sums, own]), deals, ordered) @ SIGNS


def split_values(
    split: SplitTables, cards: Ints, base: Ints, offsets: tuple[Ints, ...]
) -> list[Floats]:
    """(n, 16) split-hand pay sums for each subset of four cards beside the split card of
    `base` with each of `offsets` (offset indexes, one per row)."""
    ranks = mask_ranks(swap_to_clubs(cards, (base // 13)[:, None]))
    ids = [np.asarray(split_id(base % 13, offset), dtype=np.int64) for offset in offsets]
    return [values_at(_split_lookup(split, each), ranks) for each in ids]


def _split_lookup(split: SplitTables, ids: Ints) -> Lookup:
    def lookup(size: int, ranks: Ints) -> Floats:
        values: Floats = split.sums[size][ids, ranks]
        return values

    return lookup


def split_totals(split: SplitTables, others: Ints, base: Ints, offset: Ints) -> Floats:
    """(n, 16) pay totals of holding the split card (base, offset) and the cards of `others`
    (four per row) at each mask."""
    return split_values(split, others, base, (offset,))[0] @ SIGNS4


def stub_totals(
    sums: list[Ints],
    own: Ints,
    gain_sums: list[Ints],
    gain: Ints,
    split: SplitTables,
    deals: Ints,
    ordered: bool = False,
) -> Floats:
    """(n, 32) totals of each hold with the undealt split card possible, times 141
    (`ordered`: the deals' rows are ascending)."""
    pay = subset_values(table_lookup([*sums, own]), deals, ordered)
    gains = subset_values(table_lookup([*gain_sums, gain]), deals, ordered)
    totals = STUB_WEIGHT * (pay @ SIGNS) + gains @ SIGNS
    n = len(deals)
    for position in range(5):
        others = np.delete(deals, position, axis=1)
        base = deals[:, position]
        # g summed over the hands containing X, for every X holding this position:
        # the split-hand sums of X minus the position, less 3 times X's pay sums.
        offsets = tuple(np.full(n, offset) for offset in range(3))
        with_split = np.sum(split_values(split, others, base, offsets), axis=0)
        held = HELD[position]
        g = np.zeros((n, MASKS), dtype=np.float64)
        g[:, held] = with_split[:, REST[position]] - 3 * pay[:, held]
        totals -= (g @ SIGNS) * HOLDS_POSITION[position]
    return totals


def _drop(mask: int, position: int) -> int:
    """The four-position mask of `mask` without `position` (positions above it move down)."""
    low = mask & ((1 << position) - 1)
    high = mask >> (position + 1)
    return low | high << position


MASK_SIZES = [bin(mask).count("1") for mask in range(MASKS)]
HELD = [np.array([m for m in range(MASKS) if m >> p & 1]) for p in range(5)]
REST = [np.array([_drop(m, p) for m in HELD[p]]) for p in range(5)]
HOLDS_POSITION = [np.array([m >> p & 1 for m in range(MASKS)], dtype=np.float64) for p in range(5)]
