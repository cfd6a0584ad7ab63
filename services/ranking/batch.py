"""Vectorised evaluation of many hands at once with NumPy gathers over the fast tables.

The same encoding as `fast` (see `encoding`): per card one int32 whose sum over the hand
holds the centred rank-key sum (above bit 8) and the suit-key sum (low byte). The rank-key
sums of hands are spread over about eight million values, so the non-flush table becomes a
dense uint16 array of class numbers (16 MB for seven cards) plus a small array of values;
flush hands (about 3 % of seven-card hands) take a second pass over a 13-bit rank mask.
Hands are processed in chunks that stay in the CPU cache.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np
import numpy.typing as npt

from services.ranking.encoding import FAST_INTS, NUM_RANKS, NUM_SUITS
from services.ranking.tables import (
    LOW_BIT_OF_RANK,
    flush5_table,
    flush_mask_table,
    flush_suit_table,
    low_table,
    non_flush_table,
)

CHUNK = 1 << 15
Cards = npt.NDArray[Any]
Values = npt.NDArray[np.int32]

_ENC = np.array(FAST_INTS, dtype=np.int32)


class DenseTable:
    """A dict of centred rank-key sum -> value as a dense class-number array plus values.

    Class numbers follow the order of values (a higher class is a better hand), and the
    values of `also` (the flushes, which the dict leaves out) get class numbers too, so hands
    can be compared by class alone.
    """

    def __init__(self, table: dict[int, int], also: tuple[int, ...] = ()) -> None:
        values = sorted(set(table.values()) | set(also))
        if len(values) >= 1 << 16:
            raise AssertionError("too many classes for a uint16 dense table")
        number = {v: i for i, v in enumerate(values)}
        self.offset = min(table)
        self.classes = np.zeros(max(table) - self.offset + 1, dtype=np.uint16)
        keys = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
        self.classes[keys - self.offset] = np.fromiter(
            (number[v] for v in table.values()), dtype=np.uint16, count=len(table)
        )
        self.values = np.array(values, dtype=np.int32)

    def shared_bytes(self) -> bytes:
        """The class numbers as little-endian uint16 bytes, shared with this table from now
        on (the single-hand evaluator reads the same 16 MB instead of a second copy)."""
        data = self.classes.astype("<u2").tobytes()
        self.classes = np.frombuffer(data, dtype="<u2")
        return data

    def lookup(self, rank_sums: npt.NDArray[np.int32]) -> Values:
        rank_sums -= self.offset
        return np.take(self.values, np.take(self.classes, rank_sums))


@functools.cache
def dense_tables(size: int) -> tuple[DenseTable, npt.NDArray[np.int8]]:
    flush_suits = np.array(flush_suit_table(size), dtype=np.int8)
    flushes = tuple(v for v in set(flush_mask_table()) if v)
    return DenseTable(non_flush_table(size), also=flushes), flush_suits


@functools.cache
def _flush_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], DenseTable]:
    # Row s + 1 gives each card's rank bit when the card is of suit s (row 0 unused).
    bits = np.zeros((NUM_SUITS + 1, len(FAST_INTS)), dtype=np.int32)
    for i in range(len(FAST_INTS)):
        bits[i // NUM_RANKS + 1, i] = 1 << (i % NUM_RANKS)
    best = np.array(flush_mask_table(), dtype=np.int32)
    return bits.ravel(), best, DenseTable(flush5_table())


def _check(cards: Cards, size: int) -> npt.NDArray[np.uint8]:
    array = np.asarray(cards)
    if array.ndim != 2 or array.shape[1] != size:
        raise ValueError(f"expected an array of shape (hands, {size}), got {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= len(FAST_INTS)):
        raise ValueError("card numbers must be 0..51")
    # uint8 card numbers keep the gathers' index traffic small.
    return array.astype(np.uint8, copy=False)


def eval7_batch(cards: Cards) -> Values:
    """Values of the best five of seven for each row of card numbers (shape (n, 7))."""
    hands = _check(cards, 7)
    dense, flush_suits = dense_tables(7)
    bits, best, _ = _flush_tables()
    out = np.empty(len(hands), dtype=np.int32)
    for start in range(0, len(hands), CHUNK):
        chunk = hands[start : start + CHUNK]
        columns = np.ascontiguousarray(chunk.T)
        k = np.take(_ENC, columns[0])
        for j in range(1, 7):
            k += np.take(_ENC, columns[j])
        suits = np.take(flush_suits, k & 255)
        k >>= 8
        values = dense.lookup(k)
        flushes = np.flatnonzero(suits)
        if flushes.size:
            row_base = suits[flushes].astype(np.intp) * len(FAST_INTS)
            mask = np.take(bits, row_base + columns[0, flushes])
            for j in range(1, 7):
                mask |= np.take(bits, row_base + columns[j, flushes])
            values[flushes] = np.take(best, mask)
        out[start : start + len(chunk)] = values
    return out


def eval5_batch(cards: Cards) -> Values:
    """Values of five-card hands for each row of card numbers (shape (n, 5))."""
    hands = _check(cards, 5)
    dense, flush_suits = dense_tables(5)
    _, _, flush_dense = _flush_tables()
    out = np.empty(len(hands), dtype=np.int32)
    for start in range(0, len(hands), CHUNK):
        chunk = hands[start : start + CHUNK]
        columns = np.ascontiguousarray(chunk.T)
        k = np.take(_ENC, columns[0])
        for j in range(1, 5):
            k += np.take(_ENC, columns[j])
        flushes = np.flatnonzero(np.take(flush_suits, k & 255))
        k >>= 8
        flush_sums = k[flushes]
        values = dense.lookup(k)
        if flushes.size:
            values[flushes] = flush_dense.lookup(flush_sums)
        out[start : start + len(chunk)] = values
    return out


def best_high_batch(cards: Cards) -> Values:
    """Values of the best five of each row of 5 to 9 card numbers (shape (n, size))."""
    array = np.asarray(cards)
    size = array.shape[1] if array.ndim == 2 else 0
    if size == 5:
        return eval5_batch(array)
    if size == 7:
        return eval7_batch(array)
    if size not in (6, 8, 9):
        raise ValueError(f"expected 5 to 9 cards per hand, got shape {array.shape}")
    # Six cards: the best of its six five-card hands; eight or nine: of its seven-card ones.
    part, evaluate = (5, eval5_batch) if size == 6 else (7, eval7_batch)
    best = np.zeros(len(array), dtype=np.int32)
    for columns in itertools.combinations(range(size), part):
        np.maximum(best, evaluate(array[:, columns]), out=best)
    return best


# Per card number, its ace-to-five low bit (see tables.LOW_BIT_OF_RANK).
_LOW_BITS = np.array(
    [LOW_BIT_OF_RANK[i % NUM_RANKS] for i in range(len(FAST_INTS))], dtype=np.uint8
)
_LOW = np.array(low_table(0), dtype=np.int32)


def low_batch(cards: Cards) -> Values:
    """Best eight-or-better low of each row of card numbers (higher is better), 0 for none."""
    array = np.asarray(cards)
    if array.ndim != 2 or array.shape[1] < 5:
        raise ValueError(f"expected an array of shape (hands, 5 or more), got {array.shape}")
    held = np.bitwise_or.reduce(np.take(_LOW_BITS, array), axis=1).astype(np.intp)
    lows: Values = _LOW[held]
    return lows
