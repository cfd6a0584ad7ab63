"""The engine's cards: two-character strings ("As", "Td", "2c") exactly as on the wire.

The engine never shuffles; it only checks that the cards it is given are well formed and
that no card is dealt twice within a hand.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"
FULL_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
DECK_SIZE = len(FULL_DECK)
VALID_CARDS = frozenset(FULL_DECK)
_VALID = VALID_CARDS

Card = str


def is_card(text: str) -> bool:
    return text in _VALID


def rank_of(card: Card) -> str:
    return card[0]


def rank_value(card: Card) -> int:
    """2..14 (ace high)."""
    return RANKS.index(card[0]) + 2


def card_order(card: Card) -> tuple[int, int]:
    """Sort key, lowest value first (deuce first, ties by suit c < d < h < s)."""
    return RANKS.index(card[0]), SUITS.index(card[1])


def lowest_card(cards: Iterable[Card]) -> Card:
    """The lowest-value card: the default open discard when a player times out."""
    return min(cards, key=card_order)
