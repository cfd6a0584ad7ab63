"""Best five-card hand from ranks alone, the slow and obviously-correct way.

These functions build the lookup tables once; the fast evaluators never call them per hand.
Ranks here are indexes 0..12 (two..ace); values come from `values.pack` with rank numbers
2..14. A rank multiset may hold five or more of one rank: that happens once wild cards have
been given ranks, and it makes five of a kind.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.ranking.values import Category, pack

NUM_RANKS = 13
ACE = 12
# Each straight as its top rank index and the five rank indexes it needs; the wheel's ace
# plays low (rank number 1) and the wheel is the lowest straight.
STRAIGHTS: tuple[tuple[int, tuple[int, ...]], ...] = tuple(
    (top, tuple(range(top - 4, top + 1)) if top > 3 else (0, 1, 2, 3, ACE))
    for top in range(ACE, 2, -1)
)


def _straight_ranks(top: int) -> list[int]:
    """Rank numbers of the straight topped by rank index `top`, highest first."""
    if top == 3:
        return [5, 4, 3, 2, 1]
    return [top + 2 - i for i in range(5)]


def best_straight_top(present: Iterable[int], wilds: int = 0) -> int | None:
    """Top rank index of the best straight the ranks `present` make with `wilds` fillers."""
    have = set(present)
    for top, needed in STRAIGHTS:
        if sum(1 for r in needed if r not in have) <= wilds:
            return top
    return None


def pattern_value(counts: list[int]) -> int:
    """Best non-flush hand (suits ignored) from rank counts totalling five or more cards."""
    by_count = sorted(
        ((c, r) for r, c in enumerate(counts) if c), key=lambda cr: (cr[0], cr[1]), reverse=True
    )
    top_count, top_rank = by_count[0]
    if top_count >= 5:
        return pack(Category.FIVE_OF_A_KIND, [top_rank + 2] * 5)

    def kickers(exclude: set[int], n: int) -> list[int]:
        return [r + 2 for r in range(ACE, -1, -1) if counts[r] and r not in exclude][:n]

    if top_count == 4:
        return pack(Category.FOUR_OF_A_KIND, [top_rank + 2] * 4 + kickers({top_rank}, 1))
    second_count, _second_rank = by_count[1]
    if top_count == 3 and second_count >= 2:
        # The pair of a full house is the best other rank holding two or more cards.
        pair = max(r for c, r in by_count[1:] if c >= 2)
        return pack(Category.FULL_HOUSE, [top_rank + 2] * 3 + [pair + 2] * 2)
    top = best_straight_top(r for r, c in enumerate(counts) if c)
    if top is not None:
        return pack(Category.STRAIGHT, _straight_ranks(top))
    if top_count == 3:
        return pack(Category.THREE_OF_A_KIND, [top_rank + 2] * 3 + kickers({top_rank}, 2))
    if top_count == 2 and second_count == 2:
        pairs = sorted((r for c, r in by_count if c == 2), reverse=True)[:2]
        high, low = pairs
        return pack(Category.TWO_PAIR, [high + 2] * 2 + [low + 2] * 2 + kickers({high, low}, 1))
    if top_count == 2:
        return pack(Category.ONE_PAIR, [top_rank + 2] * 2 + kickers({top_rank}, 3))
    return pack(Category.HIGH_CARD, kickers(set(), 5))


def flush_value(suited_ranks: Iterable[int], wilds: int = 0) -> int:
    """Best flush or straight flush from the distinct rank indexes of one suit plus `wilds`.

    A wild may be any card, even one the player holds, so in a plain flush every wild is an
    ace (A-A-K-9-7 beats A-K-Q-9-7). Needs at least five cards in all.
    """
    ranks = sorted(set(suited_ranks), reverse=True)
    top = best_straight_top(ranks, wilds)
    if top is not None:
        return pack(Category.STRAIGHT_FLUSH, _straight_ranks(top))
    numbers = sorted([14] * wilds + [r + 2 for r in ranks], reverse=True)[:5]
    return pack(Category.FLUSH, numbers)
