"""Integer encodings that turn a hand evaluation into a few additions and one lookup.

Cards are numbered 0..51 as in `services.games.cards` (suit-major: 2c=0 .. Ac=12, 2d=13 ..).
For the fast paths each card becomes one integer holding two keys:

* a **rank key** (`RANK_KEYS`): every multiset of up to seven ranks (at most four of a rank)
  has a different sum, so the sum of seven keys names the rank multiset;
* a **suit key** (`SUIT_KEYS` = 0, 1, 25, 32) in the low byte: the sum of seven or five suit
  keys tells whether five or more cards share a suit, and which (checked when tables build).

    card_int = (RANK_KEYS[rank] - CENTER) << 8 | SUIT_KEYS[suit]

Subtracting `CENTER` from every rank key shifts each sum by a known constant and keeps every
partial sum of seven cards within +-2**30, so CPython adds them as single-digit integers (a
third faster than two-digit ones). The wild-card encoding (`wild_encoding`) uses a wider
layout and is described there.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

NUM_RANKS = 13
NUM_SUITS = 4
DECK = 52

# Sums of up to seven of these (each used at most four times) are distinct: the keys of
# Steve Brecher/SKPokerEval, checked again when the tables are built.
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
# Smallest keys (found by search) whose sums over seven cards tell flush/no flush and suit.
SUIT_KEYS = (0, 1, 25, 32)
SUIT_BITS = 8
SUIT_MASK = (1 << SUIT_BITS) - 1
CENTER = 559_011  # about half the largest seven-card rank-key sum, divided by seven


def rank_of(index: int) -> int:
    """Rank index 0..12 (two..ace) of card number `index`."""
    return index % NUM_RANKS


def suit_of(index: int) -> int:
    return index // NUM_RANKS


FAST_INTS: tuple[int, ...] = tuple(
    ((RANK_KEYS[rank_of(i)] - CENTER) << SUIT_BITS) | SUIT_KEYS[suit_of(i)] for i in range(DECK)
)


def encode(indexes: Iterable[int]) -> tuple[int, ...]:
    """Card numbers to the integers `eval5_ints` / `eval7_ints` take."""
    return tuple(FAST_INTS[i] for i in indexes)


# Wild-card layout: bits 0-7 sum of suit keys of the natural cards, bits 8-11 number of
# wild cards, bits 12+ centred rank-key sum of the naturals. So `k >> 8` names the natural
# rank multiset together with the wild count, and `k & 0xFFF` tells whether the naturals
# all share one suit (a flush is then possible).
WILD_UNIT = 1 << 8
WILD_FIELD = 0xFFF
WILD_RANK_SHIFT = 12


@functools.cache
def wild_encoding(wild_indexes: frozenset[int]) -> tuple[int, ...]:
    """Per-card integers for `eval_wild5_ints` when the cards `wild_indexes` are wild."""
    return tuple(
        WILD_UNIT
        if i in wild_indexes
        else ((RANK_KEYS[rank_of(i)] - CENTER) << WILD_RANK_SHIFT) | SUIT_KEYS[suit_of(i)]
        for i in range(DECK)
    )
