"""Hand categories and the single comparable integer every evaluation returns.

A high-hand value packs a category strength and the five ranks of the hand in order of
significance, one 4-bit digit each:

    value = strength << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

Ranks are numbered 2..14 (two..ace); the ace of a wheel (5-4-3-2-A) is written 1 so that the
wheel sorts below a six-high straight. "Full house, queens full of fours" is QQQ44, two pair
is high pair, low pair, kicker. Comparing two values compares category first, then the ranks
one by one, which is exactly the poker ordering; suits never appear. The value also lets us
rebuild the hand's shape (and its description) without the cards.

Strengths are spaced by two so that five of a kind can sit either above a straight flush
(the default, strength 20) or, as a table option, just below it (strength 17).
"""

from __future__ import annotations

import enum
import functools

RANK_NAMES = (
    "ace",  # 1: the ace of a wheel
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
RANK_CHARS = "A23456789TJQKA"  # indexed by rank number - 1


class Category(enum.IntEnum):
    """High-hand categories, weakest first."""

    HIGH_CARD = 1
    ONE_PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    FIVE_OF_A_KIND = 10


CATEGORY_SHIFT = 20
FIVE_OF_A_KIND_BELOW_STRENGTH = 17  # between four of a kind (16) and straight flush (18)
_FIVE_ABOVE_BASE = (2 * Category.FIVE_OF_A_KIND) << CATEGORY_SHIFT
_DEMOTION = (2 * Category.FIVE_OF_A_KIND - FIVE_OF_A_KIND_BELOW_STRENGTH) << CATEGORY_SHIFT


def pack(category: Category, ranks: tuple[int, ...] | list[int]) -> int:
    """The value of a hand of `category` whose five rank numbers, by significance, are `ranks`."""
    value = 2 * int(category)
    for rank in ranks:
        value = value << 4 | rank
    return value


def category_of(value: int) -> Category:
    strength = value >> CATEGORY_SHIFT
    if strength == FIVE_OF_A_KIND_BELOW_STRENGTH:
        return Category.FIVE_OF_A_KIND
    category = _CATEGORY_BY_NUMBER.get(strength // 2)
    if category is None:
        return Category(strength // 2)  # raises ValueError as before for a bad value
    return category


_CATEGORY_BY_NUMBER = {int(c): c for c in Category}  # a dict lookup beats Category(n)


def ranks_of(value: int) -> tuple[int, int, int, int, int]:
    """The five rank numbers (2..14, 1 for a wheel's ace) in order of significance."""
    return (
        value >> 16 & 15,
        value >> 12 & 15,
        value >> 8 & 15,
        value >> 4 & 15,
        value & 15,
    )


def five_of_a_kind_below_straight_flush(value: int) -> int:
    """Re-rank a value for tables where five of a kind ranks just below a straight flush."""
    if value >= _FIVE_ABOVE_BASE:
        return value - _DEMOTION
    return value


def _plural(rank: int) -> str:
    name = RANK_NAMES[rank - 1]
    return name + "es" if name.endswith("x") else name + "s"


# Values are few (7,462 natural hands plus the wild-only ones) and showdowns describe the
# same ones over and over: the cache turns the f-string work into one dict lookup.
@functools.lru_cache(maxsize=65536)
def describe(value: int) -> str:
    """A human description: "Full house, queens full of fours", "Five of a kind, aces"."""
    category = category_of(value)
    r = ranks_of(value)
    high = RANK_NAMES[r[0] - 1]
    if category is Category.HIGH_CARD:
        return f"High card, {high}"
    if category is Category.ONE_PAIR:
        return f"One pair, {_plural(r[0])}"
    if category is Category.TWO_PAIR:
        return f"Two pair, {_plural(r[0])} and {_plural(r[2])}"
    if category is Category.THREE_OF_A_KIND:
        return f"Three of a kind, {_plural(r[0])}"
    if category is Category.STRAIGHT:
        return f"Straight, {high} high"
    if category is Category.FLUSH:
        return f"Flush, {high} high"
    if category is Category.FULL_HOUSE:
        return f"Full house, {_plural(r[0])} full of {_plural(r[3])}"
    if category is Category.FOUR_OF_A_KIND:
        return f"Four of a kind, {_plural(r[0])}"
    if category is Category.STRAIGHT_FLUSH:
        return "Royal flush" if r[0] == 14 else f"Straight flush, {high} high"
    return f"Five of a kind, {_plural(r[0])}"


# Ace-to-five low values live in their own space: higher is a better low. The five distinct
# low ranks (ace = 1 .. 8), highest first, each stored as 15 - rank so smaller ranks win.
def pack_low(ranks_high_first: tuple[int, ...] | list[int]) -> int:
    value = 0
    for rank in ranks_high_first:
        value = value << 4 | (15 - rank)
    return value


def low_ranks_of(value: int) -> tuple[int, ...]:
    """The five low ranks (1 = ace .. 8), highest first."""
    return tuple(15 - (value >> shift & 15) for shift in (16, 12, 8, 4, 0))


@functools.lru_cache(maxsize=4096)
def describe_low(value: int) -> str:
    """ "8-6-4-2-A low"."""
    return "-".join(RANK_CHARS[rank - 1] for rank in low_ranks_of(value)) + " low"
