"""Deck specifications: what multiset of cards a shuffle permutes.

Three kinds:
- `standard`: `copies` full 52-card decks (1 for poker, 2 for two-deck games; copies > 1 is
  necessarily a multiset);
- `cards`: an explicit list of distinct cards (a duplicate is refused, naming the card);
- `multiset`: an explicit list in which duplicates are allowed (discards of a two-deck game).

The derivation never depends on the order in which a spec lists its cards: it shuffles the
cards sorted into canonical order (by `Card.index`, 2c 3c ... As), so equal multisets give
equal decks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from services.games.cards import Card, InvalidCardError, parse_card, standard_deck

DeckKind = Literal["standard", "cards", "multiset"]
DECK_KINDS: tuple[DeckKind, ...] = ("standard", "cards", "multiset")
MAX_COPIES = 8  # an eight-deck shoe is the largest real game
MAX_CARDS = 52 * MAX_COPIES


class DeckSpecError(ValueError):
    """A deck spec that cannot be used; the message names the offending card or field."""


def canonical_order(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards sorted into the canonical order the derivation shuffles (stable for duplicates)."""
    return tuple(sorted(cards, key=lambda card: card.index))


@cache
def _standard_multiset(copies: int) -> tuple[Card, ...]:
    """`copies` standard decks in canonical order: built once per size, not per shuffle (the
    cards are immutable values, so every shuffle may share the tuple)."""
    return canonical_order(card for _ in range(copies) for card in standard_deck())


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """A deck to shuffle: see the module docstring for the three kinds."""

    kind: DeckKind = "standard"
    copies: int = 1
    cards: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in DECK_KINDS:
            raise DeckSpecError(f"unknown deck kind {self.kind!r}; use one of {DECK_KINDS}")
        if self.kind == "standard":
            if not 1 <= self.copies <= MAX_COPIES:
                raise DeckSpecError(f"copies must be 1..{MAX_COPIES}, got {self.copies}")
            if self.cards:
                raise DeckSpecError(
                    "a standard deck lists no cards; use kind 'cards' or 'multiset'"
                )
            return
        if not self.cards:
            raise DeckSpecError(f"a '{self.kind}' deck needs at least one card")
        if len(self.cards) > MAX_CARDS:
            raise DeckSpecError(f"a deck holds at most {MAX_CARDS} cards, got {len(self.cards)}")
        if self.kind == "cards":
            repeated = [card for card, count in Counter(self.cards).items() if count > 1]
            if repeated:
                raise DeckSpecError(
                    f"duplicate card {repeated[0]} in deck spec; use kind 'multiset' for decks "
                    "that hold a card more than once"
                )

    @classmethod
    def parse(cls, kind: str, cards: Iterable[str] = (), copies: int = 0) -> DeckSpec:
        """Build a spec from wire values (card strings); errors name the bad card or field."""
        parsed: list[Card] = []
        for text in cards:
            try:
                parsed.append(parse_card(text))
            except InvalidCardError as exc:
                raise DeckSpecError(f"deck spec: {exc}") from exc
        if kind not in DECK_KINDS:
            raise DeckSpecError(f"unknown deck kind {kind!r}; use one of {DECK_KINDS}")
        if kind == "standard":
            return cls("standard", copies or 1, tuple(parsed))
        return cls(kind, 1, tuple(parsed))

    def card_multiset(self) -> tuple[Card, ...]:
        """Every card of the deck, in canonical order."""
        if self.kind == "standard":
            return _standard_multiset(self.copies)
        return canonical_order(self.cards)

    @property
    def size(self) -> int:
        return 52 * self.copies if self.kind == "standard" else len(self.cards)

    @property
    def allows_duplicates(self) -> bool:
        return self.kind == "multiset" or self.copies > 1

    def to_json(self) -> dict[str, object]:
        """The hand-history form: {"kind": ..., "copies": n} or {"kind": ..., "cards": [...]}."""
        if self.kind == "standard":
            return {"kind": "standard", "copies": self.copies}
        return {"kind": self.kind, "cards": [str(card) for card in self.cards]}
