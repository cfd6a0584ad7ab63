"""Hand values of many hands from their additive encodings (key sum, suit-rank mask).

The batch evaluator (`batch`) starts from card numbers; equity deals whole groups of cards
(`subsets`) and so holds each hand as the sum of its cards' `FAST_INTS` keys and the OR of
their suit-rank masks. From those two numbers:

* high hands of 5 to 7 cards: the key's low byte says whether five cards share a suit; if
  not, the dense table of `batch` gives the value; if so, that suit's 13 rank bits (one lane
  of the mask) index the best-flush table (with at most seven cards a flush rules out quads
  and full houses);
* eight-or-better lows: the four lanes OR-ed together are the ranks held;
* Spit in the Ocean (five cards, some wild): the wild cards' keys are taken back out of the
  sum, which leaves the naturals' rank-key and suit-key sums, and the count of wild cards
  completes the key of the wild-card tables (searched in sorted arrays).
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from services.ranking.batch import Values, dense_tables
from services.ranking.encoding import NUM_RANKS, NUM_SUITS
from services.ranking.subsets import CARD_KEYS, LANE, Keys, Masks
from services.ranking.tables import (
    flush_mask_table,
    low_table,
    wild5_tables,
    wild_flush_possible_table,
)

_RANK_BITS = np.uint64((1 << NUM_RANKS) - 1)
_FLUSH_BEST = np.array(flush_mask_table(), dtype=np.int32)
_LOW = np.array(low_table(0), dtype=np.int32)
_WILD_FLUSH = np.array(wild_flush_possible_table(), dtype=bool)


@functools.cache
def _class_tables(size: int) -> tuple[int, npt.NDArray[np.uint16], npt.NDArray[np.uint16]]:
    dense, _ = dense_tables(size)
    flush_classes = np.searchsorted(dense.values, _FLUSH_BEST).astype(np.uint16)
    return -(dense.offset << 8), dense.classes, flush_classes


def key_bias(size: int) -> int:
    """What `high_classes` needs added to each hand's key (the dense table's offset, moved
    into the key so that the lookup needs no subtraction; the low byte is untouched)."""
    return _class_tables(size)[0]


def high_classes(biased_keys: Keys, masks: Masks, size: int) -> npt.NDArray[np.uint16]:
    """Class numbers (higher is better, equal ties) of hands of `size` (5..7) natural cards,
    from their keys plus `key_bias(size)` and their masks."""
    _, classes, flush_classes = _class_tables(size)
    flush_suits = dense_tables(size)[1]
    suits = np.take(flush_suits, biased_keys & 255)
    out = np.take(classes, biased_keys >> 8)
    flushes = np.flatnonzero(suits)
    if flushes.size:
        lanes = (suits[flushes].astype(np.uint64) - np.uint64(1)) * np.uint64(LANE)
        ranks = (masks[flushes] >> lanes) & _RANK_BITS
        out[flushes] = np.take(flush_classes, ranks.astype(np.intp))
    return out


def high_values(keys: Keys, masks: Masks, size: int) -> Values:
    """Values of hands of `size` (5..7) natural cards, from their keys and masks."""
    classes = high_classes(keys + np.int32(key_bias(size)), masks, size)
    return np.take(dense_tables(size)[0].values, classes)


def ranks_held(masks: Masks) -> npt.NDArray[np.uint64]:
    """13-bit mask of the ranks present in each hand (two = bit 0 .. ace = bit 12)."""
    held = masks | (masks >> np.uint64(LANE))
    held |= held >> np.uint64(2 * LANE)
    return held & _RANK_BITS


def low_values(masks: Masks) -> Values:
    """Best eight-or-better low of each hand (higher is better), 0 when none qualifies."""
    held = ranks_held(masks)
    # Low bits: ace = bit 0, two .. eight = bits 1..7 (see tables.LOW_BIT_OF_RANK).
    low = ((held & np.uint64(0x7F)) << np.uint64(1)) | ((held >> np.uint64(12)) & np.uint64(1))
    return np.take(_LOW, low.astype(np.intp))


@functools.cache
def _sorted_wild_tables(below: bool) -> tuple[npt.NDArray[np.int64], ...]:
    plain, suited = wild5_tables(below)
    out: list[npt.NDArray[np.int64]] = []
    for table in (plain, suited):
        keys = np.array(sorted(table), dtype=np.int64)
        out.extend((keys, np.array([table[k] for k in keys.tolist()], dtype=np.int64)))
    return tuple(out)


def _lookup(keys: npt.NDArray[np.int64], table_keys: npt.NDArray[np.int64],
            table_values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:  # fmt: skip
    at = np.searchsorted(table_keys, keys)
    if at.size and (at.max() >= len(table_keys) or (table_keys[at] != keys).any()):
        raise AssertionError("a wild-card hand key is missing from its table")
    return table_values[at]


def wild_values(
    keys: Keys, masks: Masks, wild_ranks: npt.NDArray[np.intp], extra_wild: int, below: bool
) -> Values:
    """Values of five-card hands where every card of `wild_ranks[row]` (a rank index per
    hand) is wild, and the cards of the `extra_wild` suit-rank mask too."""
    natural = keys.astype(np.int64)
    wilds = np.zeros(len(keys), dtype=np.int64)
    for suit in range(NUM_SUITS):
        position = (wild_ranks + LANE * suit).astype(np.uint64)
        held = ((masks >> position) & np.uint64(1)).astype(np.int64)
        natural -= held * np.take(CARD_KEYS, wild_ranks + NUM_RANKS * suit)
        wilds += held
    for card in range(NUM_SUITS * NUM_RANKS):
        bit = 1 << (LANE * (card // NUM_RANKS) + card % NUM_RANKS)
        if not extra_wild & bit:
            continue
        held = ((masks & np.uint64(bit)) != 0) & (wild_ranks != card % NUM_RANKS)
        natural -= held * int(CARD_KEYS[card])
        wilds += held
    suit_sums = natural & 255
    wild_keys = (natural >> 8) << 4 | wilds
    plain_keys, plain_values, suited_keys, suited_values = _sorted_wild_tables(below)
    values = _lookup(wild_keys, plain_keys, plain_values)
    suited = np.flatnonzero(np.take(_WILD_FLUSH, (wilds << 8 | suit_sums).astype(np.intp)))
    if suited.size:
        values[suited] = _lookup(wild_keys[suited], suited_keys, suited_values)
    return values.astype(np.int32)
