"""Best five of hole and board cards under a game's use rule, and "plays the board".

Hold'em lets a player use any of their hole cards (zero to two); Omaha requires exactly two.
A `UseRule` states how many hole cards the five-card hand must contain; with no limits
the fast seven-card path is used, otherwise every allowed five-card combination is tried.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace

from services.games.cards import Card
from services.ranking.fast import LOW_TABLES
from services.ranking.hands import (
    MAX_CARDS,
    HandError,
    HandResult,
    LowResult,
    check_distinct,
)
from services.ranking.high import evaluate_high_unchecked, value_of
from services.ranking.low import build_low, low_value_of
from services.ranking.tables import LOW_BIT_OF_RANK


@dataclass(frozen=True, slots=True)
class UseRule:
    """How many hole cards the best five must use: between `min_hole` and `max_hole`."""

    min_hole: int = 0
    max_hole: int = 5

    @property
    def unrestricted(self) -> bool:
        return self.min_hole == 0 and self.max_hole >= 5


ANY_CARDS = UseRule()
OMAHA = UseRule(2, 2)


def _fives(hole: Sequence[Card], board: Sequence[Card], rule: UseRule) -> Iterator[list[Card]]:
    for from_hole in range(rule.min_hole, min(rule.max_hole, 5, len(hole)) + 1):
        if 5 - from_hole > len(board):
            continue
        for mine in itertools.combinations(hole, from_hole):
            for shared in itertools.combinations(board, 5 - from_hole):
                yield [*mine, *shared]


def _check(hole: Sequence[Card], board: Sequence[Card], rule: UseRule) -> None:
    check_distinct(hole, board)
    check_counts(hole, board, rule)


def check_counts(hole: Sequence[Card], board: Sequence[Card], rule: UseRule) -> None:
    """Raise HandError unless `rule` can make a five-card hand from these cards."""
    total = len(hole) + len(board)
    if rule.unrestricted and not 5 <= total <= MAX_CARDS:
        raise HandError(f"a hand needs 5 to {MAX_CARDS} cards in all, got {total}")
    if not rule.unrestricted and next(_fives(hole, board, rule), None) is None:
        raise HandError(
            f"cannot make five cards using {rule.min_hole} to {rule.max_hole} of "
            f"{len(hole)} hole cards and {len(board)} board cards"
        )


def best_high(
    hole: Sequence[Card],
    board: Sequence[Card] = (),
    rule: UseRule = ANY_CARDS,
    wild_cards: Collection[Card] = (),
    five_kind_below: bool = False,
) -> HandResult:
    """Best high hand from `hole` + `board` under `rule`; flags when it plays the board."""
    _check(hole, board, rule)
    return best_high_unchecked(hole, board, rule, wild_cards, five_kind_below)


def best_high_unchecked(
    hole: Sequence[Card],
    board: Sequence[Card],
    rule: UseRule,
    wild_cards: Collection[Card],
    five_kind_below: bool,
    board_value: int | None = None,
) -> HandResult:
    """`best_high` for callers that have checked the cards already (showdown).

    `board_value`, when given, must be `value_of(board, wild_cards, five_kind_below)`: a
    showdown computes it once for all seats instead of once per seat.
    """
    if rule.unrestricted:
        result = evaluate_high_unchecked([*hole, *board], wild_cards, five_kind_below)
    else:
        best_five = max(
            _fives(hole, board, rule), key=lambda five: value_of(five, wild_cards, five_kind_below)
        )
        result = evaluate_high_unchecked(best_five, wild_cards, five_kind_below)
    if not (len(board) == 5 and rule.min_hole == 0 and hole):
        return result
    if board_value is None:
        board_value = value_of(board, wild_cards, five_kind_below)
    if board_value == result.value:
        board_hand = evaluate_high_unchecked(board, wild_cards, five_kind_below)
        return replace(board_hand, plays_board=True)
    return result


def best_low(
    hole: Sequence[Card],
    board: Sequence[Card] = (),
    rule: UseRule = ANY_CARDS,
    wild_cards: Collection[Card] = (),
) -> LowResult | None:
    """Best eight-or-better low from `hole` + `board` under `rule`, or None."""
    _check(hole, board, rule)
    return best_low_unchecked(hole, board, rule, wild_cards)


def best_low_unchecked(
    hole: Sequence[Card], board: Sequence[Card], rule: UseRule, wild_cards: Collection[Card]
) -> LowResult | None:
    """`best_low` for callers that have checked the cards already (showdown)."""
    if rule.unrestricted:
        cards = [*hole, *board]
        value = low_value_of(cards, wild_cards)
        return build_low(value, cards, wild_cards) if value else None
    best: tuple[int, list[Card]] = (0, [])
    for five in _fives(hole, board, rule):
        mask = 0
        wilds = 0
        for card in five:
            if card in wild_cards:
                wilds += 1
            else:
                mask |= LOW_BIT_OF_RANK[card.rank]
        value = LOW_TABLES[wilds][mask]
        if value > best[0]:
            best = (value, five)
    return build_low(best[0], best[1], wild_cards) if best[0] else None
