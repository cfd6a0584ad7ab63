"""Commands: what players, the shell and chance ask the engine to do (`decide` validates them).

Seat-scoped commands carry an optional `by` (the player id making the request); when given,
`decide` checks it owns the seat (permission_denied otherwise). `hand` on `Act`/`TimeOut`
names the hand the request was made for, so a stale request cannot act in the next hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.cardtext import Card
from services.games.poker.records import Act as Act
from services.games.poker.records import DealCards as DealCards
from services.games.ranking import SeatRank


@dataclass(frozen=True, slots=True)
class SitDown:
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class LeaveTable:
    """Leave now between hands, or after the current hand if the seat is in it."""

    seat: int
    by: str | None = None


@dataclass(frozen=True, slots=True)
class SitOut:
    seat: int
    by: str | None = None


@dataclass(frozen=True, slots=True)
class SitIn:
    seat: int
    post_big_blind: bool = False  # False: wait for the big blind to reach the seat
    by: str | None = None


@dataclass(frozen=True, slots=True)
class TopUp:
    seat: int
    amount: int
    by: str | None = None


@dataclass(frozen=True, slots=True)
class StartHand:
    pass


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The seat's clock ran out: the engine applies the default action for this decision."""

    seat: int
    hand: int | None = None


@dataclass(frozen=True, slots=True)
class ReshuffleDiscards:
    """Chance input: the dealer shuffled the requested discards back into the stub."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SupplyHandRanks:
    """Chance input: values for the pending `NeedRanks` request (seat -> high/low, board)."""

    ranks: tuple[tuple[int, SeatRank], ...]
    board: SeatRank | None = None


@dataclass(frozen=True, slots=True)
class VoidHand:
    reason: str


Command = (
    SitDown
    | LeaveTable
    | SitOut
    | SitIn
    | TopUp
    | StartHand
    | Act
    | TimeOut
    | DealCards
    | ReshuffleDiscards
    | SupplyHandRanks
    | VoidHand
)
