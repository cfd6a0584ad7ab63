"""Slow, independent reference evaluators the tests compare the fast tables against.

Cards here are (rank index 0..12, suit 0..3) pairs and may repeat: a wild card substituted
by a card the player already holds makes such a hand. Results are (category, five rank
numbers by significance) in the convention of `services.evaluator.ranking.values`.
"""

from __future__ import annotations

import itertools
from collections import Counter

from services.evaluator.ranking.values import Category

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


def ref5(cards, five_kind_below=False):
    numbers = [r + 2 for r, _ in cards]
    counts = Counter(numbers)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    candidates = [(SHAPES[shape], tuple(r for r, c in groups for _ in range(c)))]
    distinct = sorted(counts, reverse=True)
    straight = None
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
    return max(candidates, key=lambda c: (strength(c[0], five_kind_below), c[1]))


def ref_best(cards, five_kind_below=False):
    """Best of every five-card subset."""
    return max(
        (ref5(list(five), five_kind_below) for five in itertools.combinations(cards, 5)),
        key=lambda c: (strength(c[0], five_kind_below), c[1]),
    )


def ref_wild(naturals, wilds, five_kind_below=False):
    """Try every card (duplicates included) for every wild card, best of every five.

    Suits the naturals do not hold are interchangeable (they can never complete a flush
    with a natural), so one of them stands for all: the search stays exhaustive.
    """
    best = None
    key = lambda c: (strength(c[0], five_kind_below), c[1])  # noqa: E731
    suits = sorted({s for _, s in naturals})
    suits += [s for s in range(4) if s not in suits][:1]
    candidates = [(r, s) for s in suits for r in range(13)]
    for subs in itertools.combinations_with_replacement(candidates, wilds):
        result = ref_best([*naturals, *subs], five_kind_below)
        if best is None or key(result) > key(best):
            best = result
    return best


def ref_low(cards):
    """Best ace-to-five eight-or-better low as ranks high first, or None."""
    lows = sorted({1 if r == 12 else r + 2 for r, _ in cards if r == 12 or r + 2 <= 8})
    if len(lows) < 5:
        return None
    return tuple(sorted(lows[:5], reverse=True))
