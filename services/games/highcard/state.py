"""A high-card table: two seats, the round in play, and the shuffles not yet revealed."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.cardtext import Card
from services.games.highcard.config import HighCardConfig
from services.games.highcard.events import DeckCommitted

SEATS = (0, 1)


@dataclass(frozen=True, slots=True)
class Seat:
    player: str
    stack: int
    sitting_out: bool = False
    leaving: bool = False


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    pot: int
    cards: tuple[Card, ...] = ()  # seat order, once dealt
    turned: tuple[bool, bool] = (False, False)

    @property
    def dealt(self) -> bool:
        return bool(self.cards)


@dataclass(frozen=True, slots=True)
class HighCardState:
    config: HighCardConfig
    seats: tuple[Seat | None, Seat | None] = (None, None)
    round: Round | None = None  # the round in play
    rounds: int = 0  # rounds started so far
    decks: tuple[DeckCommitted, ...] = ()  # committed and not revealed yet, oldest first

    def seat(self, seat: int) -> Seat | None:
        return self.seats[seat] if seat in SEATS else None

    def deck_of(self, round_: int) -> DeckCommitted | None:
        for deck in self.decks:
            if deck.round == round_:
                return deck
        return None
