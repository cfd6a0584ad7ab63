"""Showdown: every seat's best hands and the winners of each half of the pot.

A pure function of the game's rules, the board (or the spit card) and the seats' cards. It
splits no chips: it says who wins (ties included) and the table engine divides the pot,
odd chips and all, by its own rules.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.games.cards import Card
from services.ranking.best_of import (
    ANY_CARDS,
    UseRule,
    best_high_unchecked,
    best_low_unchecked,
    check_counts,
)
from services.ranking.hands import HandError, HandResult, LowResult, check_distinct
from services.ranking.high import value_of


class Split(enum.Enum):
    """How the pot is won."""

    HIGH_ONLY = "high-only"
    HIGH_LOW_EIGHT_OR_BETTER = "high-low-8"


@dataclass(frozen=True, slots=True)
class GameRules:
    """Everything about the game that changes who wins a showdown."""

    split: Split = Split.HIGH_ONLY
    wild_cards: frozenset[Card] = field(default_factory=frozenset)
    five_kind_below_straight_flush: bool = False
    use: UseRule = ANY_CARDS


@dataclass(frozen=True, slots=True)
class SeatCards:
    seat: int
    hole: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    high: HandResult
    low: LowResult | None


@dataclass(frozen=True, slots=True)
class ShowdownResult:
    """Every seat's hands; the seats winning (or tying for) the high and the low half.

    `low_winners` is empty when no seat has a qualifying low (or the game has no low half):
    the high winners then take the whole pot.
    """

    seats: tuple[SeatResult, ...]
    high_winners: tuple[int, ...]
    low_winners: tuple[int, ...]


def _winners(values: dict[int, int]) -> tuple[int, ...]:
    if not values:
        return ()
    best = max(values.values())
    return tuple(sorted(seat for seat, value in values.items() if value == best))


def showdown(rules: GameRules, board: Sequence[Card], seats: Sequence[SeatCards]) -> ShowdownResult:
    """Evaluate every seat at showdown; raises HandError for bad or duplicate cards."""
    if not seats:
        raise HandError("a showdown needs at least one seat")
    seat_numbers = [s.seat for s in seats]
    if len(set(seat_numbers)) != len(seat_numbers):
        raise HandError("each seat may appear only once in a showdown")
    check_distinct(board, *(s.hole for s in seats))
    for seat in seats:
        check_counts(seat.hole, board, rules.use)
    below = rules.five_kind_below_straight_flush
    # Every seat compares its hand with the board's own (does it play the board?): once.
    board_value = value_of(board, rules.wild_cards, below) if len(board) == 5 else None
    results = []
    for seat in seats:
        high = best_high_unchecked(
            seat.hole, board, rules.use, rules.wild_cards, below, board_value
        )
        low = None
        if rules.split is Split.HIGH_LOW_EIGHT_OR_BETTER:
            low = best_low_unchecked(seat.hole, board, rules.use, rules.wild_cards)
        results.append(SeatResult(seat.seat, high, low))
    return ShowdownResult(
        seats=tuple(results),
        high_winners=_winners({r.seat: r.high.value for r in results}),
        low_winners=_winners({r.seat: r.low.value for r in results if r.low is not None}),
    )
