"""Commands: what players, the shell and chance ask the engine to do (`decide` validates them).

Seat-scoped commands carry an optional `by` (the player id making the request); when given,
`decide` checks it owns the seat (permission_denied otherwise). `hand` on `Act`/`TimeOut`
names the hand the request was made for, so a stale request cannot act in the next hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from services.games.cardtext import Card
from services.games.ranking import SeatRank
from services.games.values import field_values, fields_repr


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


_ACT_FIELDS: Final = ("seat", "action", "amount", "cards", "hand", "by")


# A native class under mypyc (services/games/values.py says why it is not a dataclass).
class Act:
    """One player decision. `amount` is the "raise to" total for bet and raise; `cards` for
    discard (empty = stand pat) and open-discard (exactly one)."""

    __slots__ = ("action", "amount", "by", "cards", "hand", "seat")

    seat: Final[int]
    action: Final[str]
    amount: Final[int | None]
    cards: Final[tuple[Card, ...]]
    hand: Final[int | None]
    by: Final[str | None]

    def __init__(
        self,
        seat: int,
        action: str,
        amount: int | None = None,
        cards: tuple[Card, ...] = (),
        hand: int | None = None,
        by: str | None = None,
    ) -> None:
        self.seat = seat
        self.action = action
        self.amount = amount
        self.cards = cards
        self.hand = hand
        self.by = by

    def __repr__(self) -> str:
        return fields_repr(self, _ACT_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is Act and field_values(self, _ACT_FIELDS) == field_values(
            other, _ACT_FIELDS
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _ACT_FIELDS))


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The seat's clock ran out: the engine applies the default action for this decision."""

    seat: int
    hand: int | None = None


_DEAL_FIELDS: Final = ("deals", "burned")


# A native class under mypyc, as `Act`.
class DealCards:
    """Chance input: cards for the pending `NeedCards` request, target None = the board.

    `deals` lists (target, cards) for every target of the request; `burned` the burn cards.
    """

    __slots__ = ("burned", "deals")

    deals: Final[tuple[tuple[int | None, tuple[Card, ...]], ...]]
    burned: Final[tuple[Card, ...]]

    def __init__(
        self, deals: tuple[tuple[int | None, tuple[Card, ...]], ...], burned: tuple[Card, ...] = ()
    ) -> None:
        self.deals = deals
        self.burned = burned

    def __repr__(self) -> str:
        return fields_repr(self, _DEAL_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is DealCards and field_values(self, _DEAL_FIELDS) == field_values(
            other, _DEAL_FIELDS
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _DEAL_FIELDS))

    @classmethod
    def to_seat(cls, seat: int, cards: tuple[Card, ...]) -> DealCards:
        return cls(((seat, cards),))

    @classmethod
    def to_board(cls, cards: tuple[Card, ...], burned: tuple[Card, ...] = ()) -> DealCards:
        return cls(((None, cards),), burned)


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
