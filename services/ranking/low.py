"""Ace-to-five low with the eight-or-better qualifier, from five to seven cards.

Aces are low, straights and flushes do not count against a low, pairs do: the best low is
the five lowest distinct ranks of eight or below, and there is none without five of them.
A wild card becomes the lowest rank the player is missing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from services.games.cards import Card
from services.ranking.fast import LOW_TABLES
from services.ranking.hands import (
    LowResult,
    WildSubstitution,
    check_count,
    check_distinct,
)
from services.ranking.tables import LOW_BIT_OF_RANK
from services.ranking.values import describe_low, low_ranks_of


def low_value_of(cards: Sequence[Card], wild_cards: Collection[Card] = ()) -> int:
    """Value of the best qualifying low (higher is better), 0 when there is none."""
    if not wild_cards:
        mask = 0
        for card in cards:
            mask |= LOW_BIT_OF_RANK[card.rank]
        return LOW_TABLES[0][mask]
    mask = 0
    wilds = 0
    for card in cards:
        if card in wild_cards:
            wilds += 1
        else:
            mask |= LOW_BIT_OF_RANK[card.rank]
    return LOW_TABLES[wilds][mask]


def evaluate_low(cards: Sequence[Card], wild_cards: Collection[Card] = ()) -> LowResult | None:
    """The best eight-or-better low of 5 to 9 cards, or None if it does not qualify."""
    check_count(cards)
    check_distinct(cards)
    value = low_value_of(cards, wild_cards)
    if not value:
        return None
    return build_low(value, cards, wild_cards)


def build_low(value: int, cards: Sequence[Card], wild_cards: Collection[Card]) -> LowResult:
    """The cards (and wild substitutions) spelling the low `value` from `cards`."""
    wilds = sorted((c for c in cards if c in wild_cards), key=lambda c: c.index)
    used: list[Card] = []
    substitutions: list[WildSubstitution] = []
    for rank_number in low_ranks_of(value):
        rank = 12 if rank_number == 1 else rank_number - 2
        natural = next((c for c in cards if c.rank == rank and c not in wild_cards), None)
        if natural is not None:
            used.append(natural)
            continue
        wild = wilds[len(substitutions)]
        substitutions.append(WildSubstitution(wild, Card(rank, 3)))
        used.append(wild)
    return LowResult(value, tuple(used), describe_low(value), tuple(substitutions))
