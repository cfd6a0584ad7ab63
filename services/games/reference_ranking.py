"""A small, obviously-correct hand ranker (standard library only).

Used by the engine's own tests, random-play simulations and the engine-only benchmark; the
table service injects the evaluator library instead. It tries every five-card subset and,
for wild cards, constructs the best hand of each category directly (five of a kind, straight
flush, flush, straight) and otherwise adds every wild to the largest group of natural ranks,
which is optimal for the pair-based categories.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from services.games.cardtext import Card, rank_value
from services.games.ranking import HandValue

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS = 0, 2, 4, 6, 8, 10, 12, 14
FIVE_LOW, STRAIGHT_FLUSH, FIVE_HIGH = 15, 16, 18
_NAMES = {
    HIGH_CARD: "high card",
    PAIR: "one pair",
    TWO_PAIR: "two pair",
    TRIPS: "three of a kind",
    STRAIGHT: "straight",
    FLUSH: "flush",
    FULL_HOUSE: "full house",
    QUADS: "four of a kind",
    FIVE_LOW: "five of a kind",
    STRAIGHT_FLUSH: "straight flush",
    FIVE_HIGH: "five of a kind",
}
_RANK_CHARS = "??23456789TJQKA"
_WINDOWS = [(top, frozenset(range(top - 4, top + 1))) for top in range(14, 5, -1)] + [
    (5, frozenset({14, 2, 3, 4, 5}))
]

Score = tuple[int, tuple[int, ...]]


def _encode(category: int, ranks: Sequence[int]) -> int:
    value = category
    for r in ranks[:5]:
        value = value * 16 + r
    return value << (4 * (5 - min(len(ranks), 5)))


def _pattern(ranks: list[int]) -> Score:
    groups = sorted(Counter(ranks).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = [r for r, _ in groups]
    category = {
        (4, 1): QUADS,
        (3, 2): FULL_HOUSE,
        (3, 1, 1): TRIPS,
        (2, 2, 1): TWO_PAIR,
        (2, 1, 1, 1): PAIR,
    }.get(tuple(shape), HIGH_CARD)
    return category, tuple(order)


def _straight_top(naturals: list[int]) -> int | None:
    if len(set(naturals)) != len(naturals):
        return None
    present = set(naturals)
    for top, window in _WINDOWS:
        if present <= window:
            return top
    return None


def score_five(cards: Sequence[Card], wild_ranks: frozenset[str], five_high: bool) -> Score:
    """Category and tiebreak ranks of exactly five cards, wilds played as well as possible."""
    naturals = [c for c in cards if c[0] not in wild_ranks]
    wilds = len(cards) - len(naturals)
    ranks = [rank_value(c) for c in naturals]
    suited = len({c[1] for c in naturals}) <= 1
    top = _straight_top(ranks)
    candidates: list[Score] = []
    if len(set(ranks)) <= 1 and wilds:
        candidates.append((FIVE_HIGH if five_high else FIVE_LOW, (ranks[0] if ranks else 14,)))
    if top is not None and suited:
        candidates.append((STRAIGHT_FLUSH, (top,)))
    if top is not None:
        candidates.append((STRAIGHT, (top,)))
    if suited:
        fill = [r for r in range(14, 1, -1) if r not in ranks][:wilds]
        candidates.append((FLUSH, tuple(sorted(ranks + fill, reverse=True))))
    if ranks:
        counts = Counter(ranks)
        target = max(counts, key=lambda r: (counts[r], r))
        candidates.append(_pattern(ranks + [target] * wilds))
    else:
        candidates.append((FIVE_HIGH if five_high else FIVE_LOW, (14,)))
    return max(candidates)


_VALUE = {r: i + 2 for i, r in enumerate("23456789TJQKA")}


def score_natural(cards: Sequence[Card]) -> tuple[Score, tuple[Card, ...]]:
    """Best five of any number of cards without wilds, read off directly (no subsets):
    the fast path for hold'em and for simulations; tests check it against the subsets."""
    value_of = _VALUE
    by_suit: dict[str, list[int]] = {}
    counts: dict[int, int] = {}
    mask = 0
    for card in cards:
        value = value_of[card[0]]
        counts[value] = counts.get(value, 0) + 1
        mask |= 1 << value
        suit = card[1]
        if suit in by_suit:
            by_suit[suit].append(value)
        else:
            by_suit[suit] = [value]
    flush_suit = None
    for suit, values in by_suit.items():
        if len(values) >= 5:
            flush_suit = suit
            break
    best: Score
    if flush_suit is not None:
        suited = sorted(by_suit[flush_suit], reverse=True)
        top = _best_straight(suited)
        best = (STRAIGHT_FLUSH, (top,)) if top else (FLUSH, tuple(suited[:5]))
    else:
        top = _STRAIGHT_TOP[mask >> 2]
        best = (STRAIGHT, (top,)) if top else (HIGH_CARD, ())
    # (count, rank), most cards first, then the higher rank: singletons come out in
    # descending rank order, so kickers can be read off the front of the rest.
    groups = sorted([(n, r) for r, n in counts.items()], reverse=True)
    n1, r1 = groups[0]
    rest = groups[1:]
    pattern: Score
    if n1 >= 4:
        pattern = (QUADS, (r1, max(r for _, r in rest)))
    elif n1 == 3 and rest and rest[0][0] >= 2:
        pattern = (FULL_HOUSE, (r1, rest[0][1]))
    elif n1 == 3:
        pattern = (TRIPS, (r1, *[r for _, r in rest[:2]]))
    elif n1 == 2 and rest and rest[0][0] == 2:
        kicker = max(r for _, r in rest[1:])
        pattern = (TWO_PAIR, (r1, rest[0][1], kicker))
    elif n1 == 2:
        pattern = (PAIR, (r1, *[r for _, r in rest[:3]]))
    else:
        pattern = (HIGH_CARD, tuple([r for _, r in groups[:5]]))
    score = max(best, pattern)
    return score, _cards_for(score, cards, flush_suit)


# Rank bit masks of the straights, best first (the wheel counts the ace low).
_STRAIGHT_MASKS = [
    (top, sum(1 << (14 if r == 1 else r) for r in range(top - 4, top + 1)))
    for top in range(14, 4, -1)
]


def _straight_tops() -> list[int]:
    """The best straight's top card for every set of ranks (bits 2-14, stored shifted down
    by two), 0 for none: one list look-up instead of trying each straight in turn."""
    tops = [0] * (1 << 13)
    for ranks in range(1 << 13):
        mask = ranks << 2
        for top, window in _STRAIGHT_MASKS:
            if mask & window == window:
                tops[ranks] = top
                break
    return tops


_STRAIGHT_TOP = _straight_tops()


def _best_straight(values: Iterable[int]) -> int | None:
    mask = 0
    for v in values:
        mask |= 1 << v
    return _STRAIGHT_TOP[mask >> 2] or None  # the table built for the no-flush case


def _cards_for(score: Score, cards: Sequence[Card], suit: str | None) -> tuple[Card, ...]:
    """The five cards making `score`: for each rank it names, the cards of that rank in the
    order given (only the flush suit for flushes), cut to five."""
    category, ranks = score
    value_of = _VALUE
    by_value: dict[int, list[Card]] = {}
    only = suit if category in (FLUSH, STRAIGHT_FLUSH) else None
    for c in cards:
        if only is None or c[1] == only:
            v = value_of[c[0]]
            if v in by_value:
                by_value[v].append(c)
            else:
                by_value[v] = [c]
    if category in (STRAIGHT, STRAIGHT_FLUSH):
        top = ranks[0]
        wanted = (14, 2, 3, 4, 5) if top == 5 else range(top, top - 5, -1)
        return tuple([by_value[r][0] for r in wanted])
    chosen: list[Card] = []
    for r in ranks:
        chosen += by_value[r]
    return tuple(chosen[:5])


class ReferenceRanker:
    """Implements `services.games.ranking.HandRanker` by brute force over five-card subsets."""

    def rank_high(
        self,
        cards: Sequence[Card],
        wild_ranks: frozenset[str] = frozenset(),
        five_of_a_kind_beats_straight_flush: bool = True,
    ) -> HandValue:
        best: tuple[Score, tuple[Card, ...]] | None = None
        if not wild_ranks or not any(c[0] in wild_ranks for c in cards):
            best = score_natural(cards)
        for combo in combinations(cards, 5) if best is None else ():
            five = tuple(combo)
            score = score_five(five, wild_ranks, five_of_a_kind_beats_straight_flush)
            if best is None or score > best[0]:
                best = (score, five)
        assert best is not None, "need at least five cards"
        (category, ranks), chosen = best
        label = f"{_NAMES[category]}, " + " ".join([_RANK_CHARS[r] for r in ranks])
        return HandValue(_encode(category, ranks), label, chosen)

    def rank_low_eight(self, cards: Sequence[Card]) -> HandValue | None:
        by_rank: dict[int, Card] = {}
        for card in cards:
            value = 1 if card[0] == "A" else rank_value(card)
            if value <= 8:
                by_rank.setdefault(value, card)
        if len(by_rank) < 5:
            return None
        low = sorted(by_rank)[:5]
        descending = sorted(low, reverse=True)
        strength = 16**5 - _encode(0, descending)
        label = "low " + "-".join("A" if r == 1 else str(r) for r in descending)
        return HandValue(strength, label, tuple(by_rank[r] for r in descending))
