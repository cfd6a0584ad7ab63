"""What a final hand is under a pay table: the one place that classifies hands.

A five-card hand is read as its shape: how many natural (non-wild) cards of each rank, how
many wild cards, and whether every natural card shares one suit. Each pay line is a predicate
on the shape, tried from the best paid down; the first that holds is the hand. Reading shapes
rather than card lists makes the same rules hold for the hands a split card makes, which may
hold one card twice (a split 7h|7h with 7c 7d 7s is five of a kind; 7h|7h 8h 9h Jh a flush).

A hand with a split card holds six cards and is paid once, for the best paying five of them
(`best_five`). Cards here are (rank, suit) index pairs: rank 0..12 for 2..A, suit 0..3 for
c, d, h, s (services.games.cards).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from services.games.cards import RANKS
from services.games.videopoker.paytables import Hand, PayLine, PayTable

CardPair = tuple[int, int]  # (rank, suit)

ACE = RANKS.index("A")
JACK = RANKS.index("J")
TEN = RANKS.index("T")
LOW_QUADS = frozenset(RANKS.index(r) for r in "234")
LOW_KICKERS = frozenset(RANKS.index(r) for r in "A234")
# Every five-rank window a straight may fill: the wheel (A-2-3-4-5) and 2-6 up to T-A.
STRAIGHT_WINDOWS = (
    frozenset((ACE, 0, 1, 2, 3)),
    *(frozenset(range(low, low + 5)) for low in range(RANKS.index("T") + 1)),
)
ROYAL_RANKS = frozenset(range(TEN, ACE + 1))


@dataclass(frozen=True, slots=True)
class Shape:
    """A five-card hand as the pay lines read it."""

    counts: tuple[int, ...]  # natural cards of each rank, 2..A
    wilds: int
    suited: bool  # every natural card of one suit

    @property
    def distinct(self) -> bool:
        return max(self.counts) <= 1

    @property
    def ranks(self) -> frozenset[int]:
        return frozenset(rank for rank, count in enumerate(self.counts) if count)

    def top_two(self) -> tuple[int, int]:
        ordered = sorted(self.counts, reverse=True)
        return ordered[0], ordered[1]


def shape_of(cards: Sequence[CardPair], wild_rank: int | None) -> Shape:
    counts = [0] * len(RANKS)
    wilds = 0
    suits = set()
    for rank, suit in cards:
        if rank == wild_rank:
            wilds += 1
        else:
            counts[rank] += 1
            suits.add(suit)
    return Shape(tuple(counts), wilds, len(suits) <= 1)


def _straight(shape: Shape) -> bool:
    ranks = shape.ranks
    return shape.distinct and any(ranks <= window for window in STRAIGHT_WINDOWS)


def _needs(shape: Shape, first: int, second: int = 0) -> bool:
    """Whether the wild cards can make two groups of `first` and `second` cards of distinct
    ranks from the two largest natural groups."""
    top, next_ = shape.top_two()
    return max(0, first - top) + max(0, second - next_) <= shape.wilds


def _quads(ranks: frozenset[int], kickers: frozenset[int] | None = None) -> Predicate:
    """Four of one of `ranks` (no wild cards in these tables) and, when `kickers` is given,
    a fifth card of one of those ranks: the fifth of five of a kind is its own kicker."""

    def holds(shape: Shape) -> bool:
        for rank in ranks:
            count = shape.counts[rank]
            if count + shape.wilds < 4:
                continue
            if kickers is None:
                return True
            kicker = (
                rank
                if count == 5
                else next(
                    (other for other, n in enumerate(shape.counts) if n and other != rank), rank
                )
            )
            if kicker in kickers:
                return True
        return False

    return holds


Predicate = Callable[[Shape], bool]

PREDICATES: dict[Hand, Predicate] = {
    Hand.ROYAL_FLUSH: lambda s: s.wilds == 0 and s.suited and s.ranks == ROYAL_RANKS,
    Hand.FOUR_DEUCES: lambda s: s.wilds >= 4,
    Hand.WILD_ROYAL_FLUSH: lambda s: (
        s.wilds > 0 and s.suited and s.distinct and s.ranks <= ROYAL_RANKS
    ),
    Hand.FIVE_OF_A_KIND: lambda s: _needs(s, 5),
    Hand.STRAIGHT_FLUSH: lambda s: s.suited and _straight(s),
    Hand.FOUR_ACES_WITH_2_3_4: _quads(frozenset({ACE}), LOW_KICKERS - {ACE}),
    Hand.FOUR_2S_3S_4S_WITH_A_2_3_4: _quads(LOW_QUADS, LOW_KICKERS),
    Hand.FOUR_ACES: _quads(frozenset({ACE})),
    Hand.FOUR_2S_3S_4S: _quads(LOW_QUADS),
    Hand.FOUR_5S_THROUGH_KINGS: _quads(frozenset(range(RANKS.index("5"), ACE))),
    Hand.FOUR_OF_A_KIND: lambda s: _needs(s, 4),
    Hand.FULL_HOUSE: lambda s: _needs(s, 3, 2),
    Hand.FLUSH: lambda s: s.suited,
    Hand.STRAIGHT: _straight,
    Hand.THREE_OF_A_KIND: lambda s: _needs(s, 3),
    Hand.TWO_PAIR: lambda s: _needs(s, 2, 2),
    Hand.JACKS_OR_BETTER: lambda s: any(
        s.counts[rank] + s.wilds >= 2 for rank in range(JACK, ACE + 1)
    ),
}


@dataclass(frozen=True, slots=True)
class Ladder:
    """One table's lines in the order they are tried, with their predicates."""

    table: PayTable
    split: bool
    lines: tuple[PayLine, ...]
    wild_rank: int | None

    def line_of(self, shape: Shape) -> int:
        """Index of the first line `shape` makes; len(lines) when it pays nothing."""
        for index, line in enumerate(self.lines):
            if PREDICATES[line.hand](shape):
                return index
        return len(self.lines)

    def hand_at(self, index: int) -> Hand:
        return self.lines[index].hand if index < len(self.lines) else Hand.NOTHING


@cache
def ladder(table: PayTable, split: bool) -> Ladder:
    wild = None if table.wild_rank is None else RANKS.index(table.wild_rank)
    return Ladder(table, split, table.lines_for(split), wild)


@dataclass(frozen=True, slots=True)
class Judged:
    hand: Hand
    cards: tuple[CardPair, ...]  # the five that make it, in the order given


def judge_five(cards: Sequence[CardPair], rules: Ladder) -> Judged:
    index = rules.line_of(shape_of(cards, rules.wild_rank))
    return Judged(rules.hand_at(index), tuple(cards))


def best_five(cards: Sequence[CardPair], rules: Ladder) -> Judged:
    """The best paying five of five or six cards (six: a hand holding a split card), paid at
    the 5-coin rate the feature pays; among equal pays the line listed first."""
    if len(cards) == 5:
        return judge_five(cards, rules)
    if len(cards) != 6:
        raise ValueError(f"a final hand has 5 cards, or 6 with a split card; got {len(cards)}")
    best: tuple[int, tuple[CardPair, ...]] | None = None
    for five in combinations(cards, 5):
        index = rules.line_of(shape_of(five, rules.wild_rank))
        if best is None or index < best[0]:
            best = (index, five)
    assert best is not None
    return Judged(rules.hand_at(best[0]), best[1])
