"""The ranking port: how the engine learns hand values without ranking cards itself.

The table service injects a ranker backed by the ranking library (services.ranking); the
engine only compares `HandValue.strength` integers (higher is better) and stores the values
in `HandsRanked` events so a replay never needs the evaluator. `reference_ranking` holds a
small, obviously-correct stdlib ranker for tests, simulations and the engine-only CLI.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from services.games.cardtext import Card


@dataclass(frozen=True, slots=True)
class HandValue:
    """A ranked hand: `strength` orders hands (higher wins, equal ties) within one ranker."""

    strength: int
    label: str  # readable, e.g. "full house, kings over nines"
    best_five: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class RankRequest:
    """What to rank for one seat (or the board for declare-board, seat None)."""

    seat: int | None
    cards: tuple[Card, ...]  # hole cards + community cards available to this hand
    wild_ranks: frozenset[str]  # e.g. {"7"} when the spit card is a seven
    five_of_a_kind_beats_straight_flush: bool
    low: bool  # also rank an ace-to-five eight-or-better low


@dataclass(frozen=True, slots=True)
class SeatRank:
    high: HandValue
    low: HandValue | None = None  # None: no qualifying low (or not a high-low game)


class HandRanker(Protocol):
    """Best five-card hands from any number of cards (>= 5)."""

    def rank_high(
        self,
        cards: Sequence[Card],
        wild_ranks: frozenset[str],
        five_of_a_kind_beats_straight_flush: bool,
    ) -> HandValue: ...

    def rank_low_eight(self, cards: Sequence[Card]) -> HandValue | None:
        """Best ace-to-five low with five distinct ranks eight or lower, or None."""
        ...


def rank_with(ranker: HandRanker, request: RankRequest) -> SeatRank:
    high = ranker.rank_high(
        request.cards, request.wild_ranks, request.five_of_a_kind_beats_straight_flush
    )
    low = ranker.rank_low_eight(request.cards) if request.low else None
    return SeatRank(high, low)
