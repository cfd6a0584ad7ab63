"""Commands: what players, the shell and chance ask the engine to do (`decide` validates them).

Seat-scoped commands carry an optional `by` (the player id making the request); when given,
`decide` checks it owns the seat (permission_denied otherwise). `hand` on `Act`/`TimeOut`
names the hand the request was made for, so a stale request cannot act in the next hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from mypy_extensions import mypyc_attr

from services.games.cardtext import Card
from services.games.ranking import SeatRank

_set = object.__setattr__


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


# An ordinary class under mypyc (a native one has no __dict__ for the one-store __init__).
@mypyc_attr(native_class=False)
@dataclass(frozen=True, init=False)
class Act:
    """One player decision. `amount` is the "raise to" total for bet and raise; `cards` for
    discard (empty = stand pat) and open-discard (exactly one)."""

    seat: int
    action: str
    amount: int | None = None
    cards: tuple[Card, ...] = ()
    hand: int | None = None
    by: str | None = None

    def __init__(
        self,
        seat: int,
        action: str,
        amount: int | None = None,
        cards: tuple[Card, ...] = (),
        hand: int | None = None,
        by: str | None = None,
    ) -> None:
        # The most frequent command: one __dict__ store instead of the frozen dataclass
        # __init__'s six object.__setattr__ calls (a measurable share of a hand's cost).
        _set(
            self,
            "__dict__",
            {
                "seat": seat,
                "action": action,
                "amount": amount,
                "cards": cards,
                "hand": hand,
                "by": by,
            },
        )


@dataclass(frozen=True, slots=True)
class TimeOut:
    """The seat's clock ran out: the engine applies the default action for this decision."""

    seat: int
    hand: int | None = None


# An ordinary class under mypyc (a native one has no __dict__ for the one-store __init__).
@mypyc_attr(native_class=False)
@dataclass(frozen=True, init=False)
class DealCards:
    """Chance input: cards for the pending `NeedCards` request, target None = the board.

    `deals` lists (target, cards) for every target of the request; `burned` the burn cards.
    """

    deals: tuple[tuple[int | None, tuple[Card, ...]], ...]
    burned: tuple[Card, ...] = ()

    def __init__(
        self, deals: tuple[tuple[int | None, tuple[Card, ...]], ...], burned: tuple[Card, ...] = ()
    ) -> None:
        _set(self, "__dict__", {"deals": deals, "burned": burned})  # as in `Act`

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
