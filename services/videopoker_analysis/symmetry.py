"""Deals up to a permutation of the suits: 2,598,960 five-card deals fall into 134,459
classes whose members play identically (pay tables never favour a suit).

A deal's class is the descending list of its four suit masks (13 bits each: the ranks it
holds in that suit); two deals are one class exactly when those lists are equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from services.videopoker_analysis.combos import RANKS, SUITS, Ints


@dataclass(frozen=True)
class DealClasses:
    hands: Ints  # one ascending representative per class
    weights: Ints  # deals in each class (sum: the number of deals)


def suit_masks(hands: Ints) -> Ints:
    """(n, 4) rank masks by suit: the hand as one 52-bit set (card index = suit * 13 + rank),
    cut into its four 13-bit suits."""
    cards = np.left_shift(np.int64(1), hands).sum(axis=1)
    low = (1 << RANKS) - 1
    return np.stack([(cards >> (RANKS * s)) & low for s in range(SUITS)], axis=1)


def class_keys(hands: Ints) -> Ints:
    masks = -np.sort(-suit_masks(hands), axis=1)
    key = np.zeros(len(hands), dtype=np.int64)
    for column in range(SUITS):
        key = key << RANKS | masks[:, column]
    return key


def deal_classes(hands: Ints) -> DealClasses:
    _keys, first, counts = np.unique(class_keys(hands), return_index=True, return_counts=True)
    return DealClasses(hands[first], counts.astype(np.int64))
