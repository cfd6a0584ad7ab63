"""Spit's cards: two-character strings ("As", "Td", "2c") exactly as on the wire, and the one
question the game asks of two cards: does this one go on that one?

Ranks wrap (an ace goes on a king and on a 2); suits never matter, colours only when the table
plays alternating colours. A game package of its own, so it keeps its own small card functions
rather than reaching into the poker engine's modules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"
RED_SUITS = frozenset("dh")
FULL_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
VALID_CARDS = frozenset(FULL_DECK)
HIDDEN = "??"  # a card this viewer may not see

Card = str

_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}


def is_card(text: str) -> bool:
    return text in VALID_CARDS


def is_red(card: Card) -> bool:
    return card[1] in RED_SUITS


def adjacent(card: Card, top: Card) -> bool:
    """One rank up or down, wrapping: K-A-2 are consecutive."""
    step = (_RANK_INDEX[card[0]] - _RANK_INDEX[top[0]]) % len(RANKS)
    return step in (1, len(RANKS) - 1)


def fits(card: Card, top: Card, alternating_colours: bool) -> bool:
    """Whether `card` may be played on a middle pile whose top card is `top`."""
    if not adjacent(card, top):
        return False
    return not alternating_colours or is_red(card) != is_red(top)


def deck(copies: int) -> Counter[Card]:
    """The multiset of `copies` standard 52-card decks."""
    return Counter({card: copies for card in FULL_DECK})


def multiset(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)
