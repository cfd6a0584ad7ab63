"""High card's events: everything a replay needs (every card, every ante and payout), each
with a stable stored name in `TYPE` (`EVENT_TYPES` maps it back). Field names are part of the
stored format: add fields with defaults, never rename. `redact` (views.py) hides the one
secret they carry: a card dealt face down to the other seat, until it is turned."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from services.games.cardtext import Card


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    TYPE: ClassVar[str] = "highcard.PlayerSeated"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    """The player leaves once the current round is over."""

    TYPE: ClassVar[str] = "highcard.LeaveRequested"
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """The seat is free; `stack` chips go back to the player."""

    TYPE: ClassVar[str] = "highcard.PlayerLeft"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    """No new round starts while this seat sits out (a round in progress goes on)."""

    TYPE: ClassVar[str] = "highcard.PlayerSatOut"
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    TYPE: ClassVar[str] = "highcard.PlayerSatIn"
    seat: int


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    TYPE: ClassVar[str] = "highcard.ChipsAdded"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Round `round` begins: each seat puts `ante` in the pot."""

    TYPE: ClassVar[str] = "highcard.RoundStarted"
    round: int
    ante: int


@dataclass(frozen=True, slots=True)
class DeckCommitted:
    """The dealer's shuffle `shuffle_id` deals round `round`, its commitment public before the
    first card."""

    TYPE: ClassVar[str] = "highcard.DeckCommitted"
    round: int
    shuffle_id: str
    commitment: str


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """One card face down to each seat, in seat order."""

    TYPE: ClassVar[str] = "highcard.CardsDealt"
    round: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardTurned:
    """`seat` turned its card face up (`timed_out`: its time ran out and the table did it)."""

    TYPE: ClassVar[str] = "highcard.CardTurned"
    round: int
    seat: int
    card: Card
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class RoundWon:
    """The higher card takes the pot; equal ranks split it. `shares` are (seat, chips) out of
    the pot, `stacks` every seat's stack after it."""

    TYPE: ClassVar[str] = "highcard.RoundWon"
    round: int
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]
    stacks: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class RoundVoided:
    """The round could not finish: each ante goes back."""

    TYPE: ClassVar[str] = "highcard.RoundVoided"
    round: int
    reason: str


@dataclass(frozen=True, slots=True)
class DeckRevealed:
    """Round `round` is over and its shuffle closed: the dealer's reveal (JSON), with which
    anyone can check both cards."""

    TYPE: ClassVar[str] = "highcard.DeckRevealed"
    round: int
    shuffle_id: str
    reveal: str


Event = (
    PlayerSeated
    | LeaveRequested
    | PlayerLeft
    | PlayerSatOut
    | PlayerSatIn
    | ChipsAdded
    | RoundStarted
    | DeckCommitted
    | CardsDealt
    | CardTurned
    | RoundWon
    | RoundVoided
    | DeckRevealed
)

EVENT_TYPES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (
        PlayerSeated,
        LeaveRequested,
        PlayerLeft,
        PlayerSatOut,
        PlayerSatIn,
        ChipsAdded,
        RoundStarted,
        DeckCommitted,
        CardsDealt,
        CardTurned,
        RoundWon,
        RoundVoided,
        DeckRevealed,
    )
}
