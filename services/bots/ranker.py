"""The bots' `Ranker` on top of the evaluator library (services.ranking).

Cards arrive as two-character strings; they are parsed once through a table and handed to
the evaluator's fast value functions, which is what keeps Monte Carlo equity affordable.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from services.games.cards import Card, parse_card, standard_deck
from services.ranking.high import value_of
from services.ranking.low import low_value_of
from services.ranking.values import category_of

_CARDS: dict[str, Card] = {str(card): card for card in standard_deck()}


def _card(text: str) -> Card:
    found = _CARDS.get(text)
    return found if found is not None else parse_card(text)


@functools.cache
def _wilds(rank: str) -> frozenset[Card]:
    return frozenset(card for card in _CARDS.values() if card.rank_char == rank)


class EvaluatorRanker:
    """`services.bots.strength.Ranker` backed by the evaluator's lookup tables."""

    def high(self, cards: Sequence[str], wild_rank: str | None, five_high: bool) -> int:
        parsed = [_card(c) for c in cards]
        if wild_rank is None:
            return value_of(parsed)
        return value_of(parsed, _wilds(wild_rank), not five_high)

    def low(self, cards: Sequence[str]) -> int | None:
        value = low_value_of([_card(c) for c in cards])
        return value or None

    def category(self, value: int) -> int:
        return int(category_of(value))


@functools.cache
def default_ranker() -> EvaluatorRanker:
    return EvaluatorRanker()
