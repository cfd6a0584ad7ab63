"""The library behind the engine's and the bots' ranking ports, for in-process use.

`LibraryRanker` satisfies `services.games.ranking.HandRanker` (table engine: showdowns,
simulations) and `services.bots.strength.Ranker` (bot policies) structurally; both speak
two-character card strings. Values are the library's comparable integers.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from services.games.cards import Card, parse_card
from services.games.cardtext import Card as CardText
from services.games.ranking import HandValue
from services.ranking.best_of import best_high
from services.ranking.hands import HandError, cards_of_ranks
from services.ranking.low import build_low, low_value_of
from services.ranking.values import category_of


@functools.cache
def _card(text: str) -> Card:
    return parse_card(text)


@functools.cache
def _wilds(ranks: frozenset[str]) -> frozenset[Card]:
    return cards_of_ranks("".join(sorted(ranks)))


def _cards(texts: Sequence[str]) -> list[Card]:
    try:
        return [_card(t) for t in texts]
    except ValueError as error:
        raise HandError(str(error)) from error


class LibraryRanker:
    """Hand values from `services.ranking` for the engine and the bots."""

    def rank_high(
        self,
        cards: Sequence[CardText],
        wild_ranks: frozenset[str] = frozenset(),
        five_of_a_kind_beats_straight_flush: bool = True,
    ) -> HandValue:
        result = best_high(
            _cards(cards), (), wild_cards=_wilds(wild_ranks),
            five_kind_below=not five_of_a_kind_beats_straight_flush,
        )  # fmt: skip
        return HandValue(result.value, result.description, tuple(str(c) for c in result.cards))

    def rank_low_eight(self, cards: Sequence[CardText]) -> HandValue | None:
        hand = _cards(cards)
        value = low_value_of(hand)
        if not value:
            return None
        low = build_low(value, hand, ())
        return HandValue(low.value, low.description, tuple(str(c) for c in low.cards))

    # services.bots.strength.Ranker
    def high(self, cards: Sequence[str], wild_rank: str | None, five_high: bool) -> int:
        wilds = _wilds(frozenset({wild_rank})) if wild_rank else frozenset()
        return best_high(_cards(cards), (), wild_cards=wilds, five_kind_below=not five_high).value

    def low(self, cards: Sequence[str]) -> int | None:
        return low_value_of(_cards(cards)) or None

    def category(self, value: int) -> int:
        return int(category_of(value))
