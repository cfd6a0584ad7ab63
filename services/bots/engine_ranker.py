"""The engine's `HandRanker` port backed by the evaluator library, for engine-only simulations.

(The table service has its own adapter; this one keeps the simulator free of any service.)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from services.games.cards import Card, parse_card, standard_deck
from services.games.ranking import HandValue
from services.ranking.high import value_of
from services.ranking.low import low_value_of
from services.ranking.values import describe, describe_low

_CARDS: dict[str, Card] = {str(card): card for card in standard_deck()}


@functools.cache
def _wild_cards(ranks: frozenset[str]) -> frozenset[Card]:
    return frozenset(card for card in _CARDS.values() if card.rank_char in ranks)


def _parse(cards: Sequence[str]) -> list[Card]:
    return [_CARDS.get(text) or parse_card(text) for text in cards]


class EvaluatorHandRanker:
    def rank_high(
        self,
        cards: Sequence[str],
        wild_ranks: frozenset[str],
        five_of_a_kind_beats_straight_flush: bool,
    ) -> HandValue:
        parsed = _parse(cards)
        if wild_ranks:
            value = value_of(
                parsed, _wild_cards(wild_ranks), not five_of_a_kind_beats_straight_flush
            )
        else:
            value = value_of(parsed)
        return HandValue(value, describe(value))

    def rank_low_eight(self, cards: Sequence[str]) -> HandValue | None:
        value = low_value_of(_parse(cards))
        return HandValue(value, describe_low(value)) if value else None
