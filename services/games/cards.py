"""Playing cards in two-character notation: rank then suit ("As", "Td", "2c").

Ranks are `23456789TJQKA`, suits `cdhs` (clubs, diamonds, hearts, spades). Parsing accepts
either case ("as", "AS") but every card prints canonically (rank upper, suit lower), so one
card has exactly one written form in events, protos and hand histories.

Standard library only: this module is part of the pure game core.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = len(RANKS) * len(SUITS)


class InvalidCardError(ValueError):
    """A string that is not a card in two-character notation; the message names it."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card. `rank` 0..12 stands for 2..A, `suit` 0..3 for c, d, h, s."""

    rank: int
    suit: int

    def __post_init__(self) -> None:
        if not (0 <= self.rank < len(RANKS) and 0 <= self.suit < len(SUITS)):
            raise InvalidCardError(
                f"no card with rank index {self.rank} and suit index {self.suit}"
            )

    @property
    def index(self) -> int:
        """Position in the canonical deck order: suit-major, 2c=0 ... Ac=12, 2d=13 ... As=51."""
        return self.suit * len(RANKS) + self.rank

    @property
    def rank_char(self) -> str:
        return RANKS[self.rank]

    @property
    def suit_char(self) -> str:
        return SUITS[self.suit]

    def __str__(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card({self})"


def parse_card(text: str) -> Card:
    """Parse one card such as "As" or "td"; raise InvalidCardError naming the text otherwise."""
    if len(text) != 2:
        raise InvalidCardError(
            f"invalid card {text!r}: a card is two characters, rank ({RANKS}) then suit ({SUITS})"
        )
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0:
        raise InvalidCardError(f"invalid card {text!r}: rank must be one of {RANKS}")
    if suit < 0:
        raise InvalidCardError(f"invalid card {text!r}: suit must be one of {SUITS}")
    return Card(rank, suit)


def parse_cards(cards: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse "AsKd", "As Kd", "As,Kd" or an iterable of two-character strings, in order."""
    if isinstance(cards, str):
        compact = "".join(cards.replace(",", " ").split())
        if len(compact) % 2:
            raise InvalidCardError(f"invalid cards {cards!r}: expected pairs of rank and suit")
        return tuple(parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2))
    return tuple(parse_card(text) for text in cards)


def card_from_index(index: int) -> Card:
    """The card at `index` of the canonical deck order (inverse of `Card.index`)."""
    if not 0 <= index < DECK_SIZE:
        raise InvalidCardError(f"card index {index} is outside 0..{DECK_SIZE - 1}")
    return Card(index % len(RANKS), index // len(RANKS))


def format_cards(cards: Iterable[Card]) -> str:
    """Cards written canonically and separated by spaces: "As Kd 2c"."""
    return " ".join(str(card) for card in cards)


def standard_deck() -> tuple[Card, ...]:
    """The 52 distinct cards in canonical order (2c 3c ... Ac 2d ... As)."""
    return tuple(card_from_index(i) for i in range(DECK_SIZE))
