"""Card subsets as numbers: every k-subset of the 52 cards has a colex rank in [0, C(52, k)).

Cards are canonical indexes (suit * 13 + rank, 2c = 0 ... As = 51, as the dealer numbers them).
The colex rank of a set c_0 < c_1 < ... < c_{k-1} is sum_i C(c_i, i + 1).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt

DECK = 52
RANKS = 13
SUITS = 4
Ints = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]

# BINOM[n, k] = C(n, k) for n <= 52, k <= 5 (0 when k > n).
BINOM: Ints = np.array([[comb(n, k) for k in range(6)] for n in range(DECK + 1)], dtype=np.int64)
# The colex term of a set's j-th smallest card: BINOM_COLUMNS[j][card] = C(card, j + 1).
BINOM_COLUMNS = tuple(np.ascontiguousarray(BINOM[:, j + 1]) for j in range(5))


def combinations_array(n: int, k: int) -> Ints:
    """Every k-subset of range(n), ascending within a row, rows in colex order (row i has
    colex rank i). The colex list of k-subsets is, for each largest element m in turn, the
    first C(m, k-1) rows of the (k-1)-subset list with m appended."""
    rows = np.zeros((1, 0), dtype=np.int64)
    for size in range(1, k + 1):
        grown = np.empty((comb(n, size), size), dtype=np.int64)
        start = 0
        for m in range(size - 1, n):
            block = comb(m, size - 1)
            grown[start : start + block, :-1] = rows[:block]
            grown[start : start + block, -1] = m
            start += block
        rows = grown
    return rows


@cache
def all_hands() -> Ints:
    """The 2,598,960 five-card hands, row i the hand of colex rank i."""
    hands = combinations_array(DECK, 5)
    hands.setflags(write=False)
    return hands


def rank_of(cards: Ints) -> Ints:
    """Colex rank of each row of distinct cards (any order within a row), shape (..., k)."""
    return sorted_rank(np.sort(cards, axis=-1))


def sorted_rank(cards: Ints) -> Ints:
    """Colex rank of rows already ascending: sum over columns j of C(card, j + 1)."""
    total = np.zeros(cards.shape[:-1], dtype=np.int64)
    for j in range(cards.shape[-1]):
        total += BINOM_COLUMNS[j][cards[..., j]]
    return total


def subset_rank_columns(rows: Ints) -> dict[tuple[int, int], Int32s]:
    """C(card, j + 1) of column p of ascending `rows`, for every j <= p: the terms of the colex
    rank of any subset whose j-th smallest card is in column p (int32: every rank of up to
    four of 52 cards fits)."""
    return {
        (p, j): BINOM[:, j + 1].astype(np.int32)[rows[:, p]]
        for p in range(rows.shape[1])
        for j in range(p + 1)
    }


def subset_rank(
    columns: dict[tuple[int, int], Int32s], positions: tuple[int, ...], n: int
) -> Int32s:
    """Colex rank of the subset at `positions` of each row, from `subset_rank_columns`."""
    if not positions:
        return np.zeros(n, dtype=np.int32)
    total = columns[(positions[0], 0)].copy()
    for j, p in enumerate(positions[1:], start=1):
        total += columns[(p, j)]
    return total


@cache
def subset_positions(k: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For a row of k cards, the positions of each subset, grouped by size: [size][j]."""
    return tuple(tuple(combinations(range(k), size)) for size in range(k + 1))
