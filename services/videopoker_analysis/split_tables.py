"""The six-card hands a split card makes, and their subset sums, for one pay table.

A split card x|y with four other cards R is paid for the best of its six five-card hands
(drop y, drop x, or drop one card of R). Suits are symmetric, so only the 39 splits whose
base is a club are computed (13 ranks x 3 second cards): a split in another suit is read
through the suit swap that makes it a club (`canonical`). `best[s, r]` is the class of split
s with the four cards of colex rank r (rows whose four cards hold the base card itself are
impossible and left out of every sum: the split card replaced that card).

`sums[k][s, r]` totals the pays of the hands of split s whose four cards contain the k-card
set of rank r (k = 0..3; k = 4 is `pays[best]`), the split-card counterpart of the standard
subset sums, read by the advisor with the same inclusion-exclusion.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from services.games.videopoker.split import OFFSETS
from services.videopoker_analysis import disk_cache
from services.videopoker_analysis.classes import Classes, classes
from services.videopoker_analysis.combos import (
    BINOM,
    DECK,
    RANKS,
    Ints,
    combinations_array,
    sorted_rank,
    subset_positions,
)

SPLITS = len(OFFSETS) * RANKS  # canonical splits: id = rank * 3 + offset index


def split_id(rank: Ints | int, offset_index: Ints | int) -> Ints | int:
    return rank * len(OFFSETS) + offset_index


def split_cards(split: int) -> tuple[int, int]:
    """Base and second card (both clubs) of canonical split `split`."""
    rank, offset_index = divmod(split, len(OFFSETS))
    return rank, (rank + OFFSETS[offset_index]) % RANKS


def _swapped(suit: int, card: int) -> int:
    card_suit, rank = divmod(card, RANKS)
    return (0 if card_suit == suit else suit if card_suit == 0 else card_suit) * RANKS + rank


# SWAP[suit, card]: the card once `suit` and clubs are exchanged.
SWAP: Ints = np.array([[_swapped(suit, card) for card in range(DECK)] for suit in range(4)])


def swap_to_clubs(cards: Ints, suit: Ints) -> Ints:
    """Cards with suit `suit` and clubs exchanged (`suit` broadcast over rows)."""
    swapped: Ints = SWAP[suit, cards]
    return swapped


@dataclass(frozen=True)
class SplitTables:
    classes: Classes
    best: npt.NDArray[np.int8]  # (39, C(52, 4)) class of each six-card hand
    valid: npt.NDArray[np.bool_]  # (39, C(52, 4)) the four cards avoid the base
    pays: Ints  # per coin by class
    sums: tuple[Ints, ...]  # k = 0..3: (39, C(52, k)) pay totals; k = 4: pays of best, 0 if invalid


def best_of_six(table: Classes) -> npt.NDArray[np.int8]:
    fours = combinations_array(DECK, 4)
    keys = table.card_key[fours]
    bits = table.suit_bit[fours]
    key4 = keys.sum(axis=1)
    bits4 = np.bitwise_or.reduce(bits, axis=1)
    drop_keys = [key4 - keys[:, i] for i in range(4)]
    drop_bits = [np.bitwise_or.reduce(np.delete(bits, i, axis=1), axis=1) for i in range(4)]
    best = np.empty((SPLITS, len(fours)), dtype=np.int8)
    for split in range(SPLITS):
        x, y = split_cards(split)
        kx, ky = table.card_key[x], table.card_key[y]
        bx, by = table.suit_bit[x], table.suit_bit[y]
        candidates = [table.lookup(key4 + ky, bits4 | by), table.lookup(key4 + kx, bits4 | bx)]
        for i in range(4):
            candidates.append(table.lookup(drop_keys[i] + kx + ky, drop_bits[i] | bx | by))
        best[split] = np.minimum.reduce(candidates)
    return best


@cache
def split_tables(paytable: str) -> SplitTables:
    table = classes(paytable, True)
    pays = table.pays()

    def build() -> disk_cache.Arrays:
        best = best_of_six(table)
        fours = combinations_array(DECK, 4)
        bases = np.array([split_cards(s)[0] for s in range(SPLITS)])
        valid = ~(fours[None, :, :] == bases[:, None, None]).any(axis=2)
        full = np.where(valid, pays[best], 0)
        sums = {}
        for size in range(4):
            total = np.zeros((SPLITS, int(BINOM[DECK, size])), dtype=np.int64)
            for positions in subset_positions(4)[size]:
                ranks = sorted_rank(fours[:, list(positions)])
                for split in range(SPLITS):
                    total[split] += np.bincount(
                        ranks, weights=full[split], minlength=total.shape[1]
                    ).astype(np.int64)
            sums[f"sum{size}"] = total
        return {"best": best, "valid": valid, **sums, "sum4": full}

    stored = disk_cache.arrays(f"split-{paytable}", build)
    sums = tuple(np.asarray(stored[f"sum{k}"], dtype=np.int64) for k in range(5))
    best = np.asarray(stored["best"], dtype=np.int8)
    valid = np.asarray(stored["valid"], dtype=np.bool_)
    return SplitTables(table, best, valid, pays, sums)
