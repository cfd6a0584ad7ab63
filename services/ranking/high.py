"""High hands from five to seven cards, with or without wild cards: value, cards, words.

The value comes from the fast evaluators; the five cards used (and what each wild stands
for) are then rebuilt from the value, whose rank digits spell out the hand's shape.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

from services.games.cards import Card
from services.ranking.encoding import FAST_INTS, wild_encoding
from services.ranking.fast import (
    eval5_ints,
    eval7_ints,
    eval_wild5_ints,
    eval_wild5_ints_five_kind_below,
)
from services.ranking.hands import (
    HandResult,
    WildSubstitution,
    check_count,
    check_distinct,
)
from services.ranking.values import Category, category_of, describe, ranks_of

# Suits tried, in order, for a wild that stands for a card outside a flush.
_SUBSTITUTE_SUITS = (3, 2, 1, 0)


_FLUSHES = (Category.FLUSH, Category.STRAIGHT_FLUSH)
# _rank_index as a table, indexed by the value digit (0 and 15 never occur in a hand).
_RANK_INDEX = (-1, 12, *range(13), -1)


def _rank_index(number: int) -> int:
    """Rank number of a value digit (2..14, 1 = wheel ace) to a card rank index 0..12."""
    return 12 if number in (1, 14) else number - 2


def value_of(cards: Sequence[Card], wild_cards: Collection[Card] = (),
             five_kind_below: bool = False) -> int:  # fmt: skip
    """The comparable value of the best five of `cards` (5 to 9, already checked)."""
    if not wild_cards or not any(c in wild_cards for c in cards):
        # c.suit * 13 + c.rank is Card.index, inlined: this is the showdown's hot loop.
        ints = [FAST_INTS[c.suit * 13 + c.rank] for c in cards]
        if len(ints) == 7:
            a, b, c, d, e, f, g = ints
            return eval7_ints(a, b, c, d, e, f, g)
        return max(eval5_ints(a, b, c, d, e) for a, b, c, d, e in itertools.combinations(ints, 5))
    return _best_wild_five(cards, wild_cards, five_kind_below)[0]


def _best_wild_five(
    cards: Sequence[Card], wild_cards: Collection[Card], five_kind_below: bool
) -> tuple[int, tuple[Card, ...]]:
    encoding = wild_encoding(frozenset(c.index for c in wild_cards))
    evaluate = eval_wild5_ints_five_kind_below if five_kind_below else eval_wild5_ints
    best = (-1, tuple(cards[:5]))
    for five in itertools.combinations(cards, 5):
        a, b, c, d, e = (encoding[card.index] for card in five)
        value = evaluate(a, b, c, d, e)
        if value > best[0]:
            best = (value, five)
    return best


def evaluate_high(cards: Sequence[Card], wild_cards: Collection[Card] = (),
                  five_kind_below: bool = False) -> HandResult:  # fmt: skip
    """Best five-card high hand of 5 to 9 cards; cards in `wild_cards` are wild."""
    check_count(cards)
    check_distinct(cards)
    return evaluate_high_unchecked(cards, wild_cards, five_kind_below)


def evaluate_high_unchecked(cards: Sequence[Card], wild_cards: Collection[Card] = (),
                            five_kind_below: bool = False) -> HandResult:  # fmt: skip
    """`evaluate_high` for callers that have checked count and duplicates (showdown)."""
    if wild_cards and any(c in wild_cards for c in cards):
        value, five = _best_wild_five(cards, wild_cards, five_kind_below)
        used, substitutions = _assign_wilds(value, five, wild_cards, cards)
        return HandResult(category_of(value), value, used, describe(value), substitutions)
    value = value_of(cards)
    return HandResult(category_of(value), value, pick_cards(value, cards), describe(value))


def pick_cards(value: int, cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five natural cards among `cards` that make the hand `value`, best first."""
    pool: Sequence[Card] = cards
    if category_of(value) in _FLUSHES:
        # The suit with the most cards (the first such suit on a tie, as max() would pick).
        counts = [0, 0, 0, 0]
        for card in cards:
            counts[card.suit] += 1
        suit = counts.index(max(counts))
        pool = [c for c in cards if c.suit == suit]
    by_rank: dict[int, list[Card]] = {}
    for card in pool:
        if card.rank in by_rank:
            by_rank[card.rank].append(card)
        else:
            by_rank[card.rank] = [card]
    return tuple(by_rank[_RANK_INDEX[value >> shift & 15]].pop(0) for shift in (16, 12, 8, 4, 0))


def _assign_wilds(
    value: int, five: Sequence[Card], wild_cards: Collection[Card], hand: Sequence[Card]
) -> tuple[tuple[Card, ...], tuple[WildSubstitution, ...]]:
    """Give each wild among `five` the card it stands for; naturals keep their place."""
    naturals = [c for c in five if c not in wild_cards]
    wilds = sorted((c for c in five if c in wild_cards), key=lambda c: c.index)
    flush = category_of(value) in (Category.FLUSH, Category.STRAIGHT_FLUSH)
    flush_suit = naturals[0].suit if naturals else 3
    held = {(c.rank, c.suit) for c in hand if c not in wild_cards}
    ordered: list[Card] = []
    substitutions: list[WildSubstitution] = []
    unmatched = list(naturals)
    for number in ranks_of(value):
        rank = _rank_index(number)
        natural = next((c for c in unmatched if c.rank == rank), None)
        if natural is not None:
            unmatched.remove(natural)
            ordered.append(natural)
            continue
        wild = wilds[len(substitutions)]
        if flush:
            suit = flush_suit
        else:
            suit = next((s for s in _SUBSTITUTE_SUITS if (rank, s) not in held), 3)
        held.add((rank, suit))
        substitutions.append(WildSubstitution(wild, Card(rank, suit)))
        ordered.append(wild)
    if unmatched or len(substitutions) != len(wilds):
        raise AssertionError(f"cards {five} do not spell the hand value {value:#x}")
    return tuple(ordered), tuple(substitutions)
