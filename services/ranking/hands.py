"""Result types and card checks shared by the high, low and best-of-N evaluators."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.games.cards import Card, InvalidCardError, parse_cards
from services.ranking.values import Category


class HandError(ValueError):
    """A hand that cannot be evaluated: wrong number of cards, a duplicate. Names the card."""


@dataclass(frozen=True, slots=True)
class WildSubstitution:
    """The card a wild card stands for in the best hand."""

    wild: Card
    stands_for: Card


@dataclass(frozen=True, slots=True)
class HandResult:
    """A best five-card high hand. `value`: higher wins, equal values tie."""

    category: Category
    value: int
    cards: tuple[Card, ...]
    description: str
    substitutions: tuple[WildSubstitution, ...] = ()
    plays_board: bool = False


@dataclass(frozen=True, slots=True)
class LowResult:
    """A qualifying ace-to-five eight-or-better low. `value`: higher is the better low."""

    value: int
    cards: tuple[Card, ...]
    description: str
    substitutions: tuple[WildSubstitution, ...] = ()


def as_cards(cards: str | Iterable[str] | Iterable[Card]) -> tuple[Card, ...]:
    """Cards from notation ("As Kd", ["As", "Kd"]) or Card objects; raises HandError."""
    if isinstance(cards, str):
        items: list[str | Card] = [cards]
    else:
        items = list(cards)
    if all(isinstance(c, Card) for c in items):
        return tuple(c for c in items if isinstance(c, Card))
    try:
        out: list[Card] = []
        for item in items:
            out.extend([item] if isinstance(item, Card) else parse_cards(item))
        return tuple(out)
    except InvalidCardError as error:
        raise HandError(str(error)) from error


def check_distinct(*groups: Sequence[Card]) -> None:
    """Raise HandError naming the first card that appears twice across `groups`."""
    total = sum(len(group) for group in groups)
    # Fast path on integers: hashing the Card dataclass costs more than the evaluation.
    if len({c.suit * 13 + c.rank for group in groups for c in group}) == total:
        return
    seen: set[Card] = set()
    for group in groups:
        for card in group:
            if card in seen:
                raise HandError(f"duplicate card {card}: each card can appear only once")
            seen.add(card)


MAX_CARDS = 9  # more than seven (every five of them tried) for games that deal more


def check_count(cards: Sequence[Card], low: int = 5, high: int = MAX_CARDS) -> None:
    if not low <= len(cards) <= high:
        raise HandError(
            f"a hand needs {low} to {high} cards, got {len(cards)}"
            + (f" ({' '.join(map(str, cards))})" if cards else "")
        )


def cards_of_ranks(ranks: str) -> frozenset[Card]:
    """Every card of the given rank characters ("2", "2J"): how "deuces wild" is declared."""
    from services.games.cards import RANKS

    out: set[Card] = set()
    for char in ranks.upper():
        rank = RANKS.find(char)
        if rank < 0:
            raise HandError(f"invalid wild rank {char!r}: must be one of {RANKS}")
        out.update(Card(rank, suit) for suit in range(4))
    return frozenset(out)
