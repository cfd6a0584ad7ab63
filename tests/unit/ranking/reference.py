"""Slow, independent reference evaluators the tests compare the fast tables against.

Cards here are (rank index 0..12, suit 0..3) pairs and may repeat: a wild card substituted
by a card the player already holds makes such a hand. Results are (category, five rank
numbers by significance) in the convention of `services.ranking.values`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from services.ranking.values import Category

SHAPES = {
    (5,): Category.FIVE_OF_A_KIND,
    (4, 1): Category.FOUR_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (2, 2, 1): Category.TWO_PAIR,
    (2, 1, 1, 1): Category.ONE_PAIR,
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
}


def strength(category: Category, five_kind_below: bool = False) -> float:
    if category is Category.FIVE_OF_A_KIND and five_kind_below:
        return Category.STRAIGHT_FLUSH - 0.5
    return float(category)


Card = tuple[int, int]
# (category, the five rank numbers by significance); rank numbers are 2..14 (1 for a wheel ace).
Result = tuple[Category, tuple[int, ...]]


def _key(result: Result, five_kind_below: bool) -> tuple[float, tuple[int, ...]]:
    return (strength(result[0], five_kind_below), result[1])


def ref5(cards: Sequence[Card], five_kind_below: bool = False) -> Result:
    numbers = [r + 2 for r, _ in cards]
    counts = Counter(numbers)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    candidates: list[Result] = [(SHAPES[shape], tuple(r for r, c in groups for _ in range(c)))]
    distinct = sorted(counts, reverse=True)
    straight: tuple[int, ...] | None = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight = tuple(distinct)
    elif distinct == [14, 5, 4, 3, 2]:
        straight = (5, 4, 3, 2, 1)
    flush = len({s for _, s in cards}) == 1
    if straight:
        candidates.append((Category.STRAIGHT, straight))
    if flush:
        candidates.append((Category.FLUSH, tuple(sorted(numbers, reverse=True))))
    if flush and straight:
        candidates.append((Category.STRAIGHT_FLUSH, straight))
    return max(candidates, key=lambda c: _key(c, five_kind_below))


def ref_best(cards: Sequence[Card], five_kind_below: bool = False) -> Result:
    """Best of every five-card subset."""
    return max(
        (ref5(list(five), five_kind_below) for five in itertools.combinations(cards, 5)),
        key=lambda c: _key(c, five_kind_below),
    )


def ref_wild(naturals: Sequence[Card], wilds: int, five_kind_below: bool = False) -> Result | None:
    """Try every card (duplicates included) for every wild card, best of every five.

    Suits the naturals do not hold are interchangeable (they can never complete a flush
    with a natural), so one of them stands for all: the search stays exhaustive.
    """
    best: Result | None = None
    suits = sorted({s for _, s in naturals})
    suits += [s for s in range(4) if s not in suits][:1]
    candidates = [(r, s) for s in suits for r in range(13)]
    for subs in itertools.combinations_with_replacement(candidates, wilds):
        result = ref_best([*naturals, *subs], five_kind_below)
        if best is None or _key(result, five_kind_below) > _key(best, five_kind_below):
            best = result
    return best


def ref_low(cards: Sequence[Card]) -> tuple[int, ...] | None:
    """Best ace-to-five eight-or-better low as ranks high first, or None."""
    lows = sorted({1 if r == 12 else r + 2 for r, _ in cards if r == 12 or r + 2 <= 8})
    if len(lows) < 5:
        return None
    return tuple(sorted(lows[:5], reverse=True))
