"""The machine's events: immutable records that carry everything a replay needs.

A round's events hold its dealt cards, the split ticket, the hold, every line's drawn cards,
every line's result and win, each deck's commitment and reveal, and the chips moved, so a
replay needs no other service and the history shows every line's draw. Each has a stable
`TYPE`; `EVENT_TYPES` maps it to the class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from services.games.videopoker.paytables import Hand


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    TYPE: ClassVar[str] = "player-seated"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    TYPE: ClassVar[str] = "chips-added"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    TYPE: ClassVar[str] = "leave-requested"
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    TYPE: ClassVar[str] = "player-left"
    seat: int
    player: str
    stack: int  # chips to return to the player


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """The bet is committed (taken off the credits); the house receives it before the deal."""

    TYPE: ClassVar[str] = "round-started"
    round: int
    lines: int
    coins: int
    paytable: str
    bet: int  # chips


@dataclass(frozen=True, slots=True)
class BetTaken:
    TYPE: ClassVar[str] = "bet-taken"
    round: int
    amount: int


@dataclass(frozen=True, slots=True)
class DeckOpened:
    """Shuffle `name` ("deal", "split", "line-1" ...) is committed. `cards` is its deck (empty:
    one standard deck)."""

    TYPE: ClassVar[str] = "deck-opened"
    round: int
    name: str
    shuffle_id: str
    commitment: str
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HandDealt:
    TYPE: ClassVar[str] = "hand-dealt"
    round: int
    cards: tuple[str, ...]  # the five base cards, positions 0..4


@dataclass(frozen=True, slots=True)
class SplitPlaced:
    """The split ticket and what it says: `position` 0..4, or -1 for the deal deck's sixth
    card (then `second` is "" until that card is known, and the event is private)."""

    TYPE: ClassVar[str] = "split-placed"
    round: int
    ticket: str
    position: int
    offset: int
    second: str = ""


@dataclass(frozen=True, slots=True)
class HoldChosen:
    TYPE: ClassVar[str] = "hold-chosen"
    round: int
    positions: tuple[int, ...]  # ascending


@dataclass(frozen=True, slots=True)
class StubSplitFound:
    """The undealt split card: the deal deck's sixth card `base`, printed with `second`."""

    TYPE: ClassVar[str] = "stub-split-found"
    round: int
    base: str
    second: str


@dataclass(frozen=True, slots=True)
class LineDrawn:
    TYPE: ClassVar[str] = "line-drawn"
    round: int
    line: int  # 1-based
    cards: tuple[str, ...]  # in the order drawn; the split card written "9c|Tc"


@dataclass(frozen=True, slots=True)
class LineResult:
    line: int
    cards: tuple[str, ...]  # held cards by position, then the drawn ones
    hand: Hand
    best: tuple[str, ...]  # the five cards paid (a split card counts as two)
    win: int  # chips


@dataclass(frozen=True, slots=True)
class LinesSettled:
    TYPE: ClassVar[str] = "lines-settled"
    round: int
    results: tuple[LineResult, ...]
    win: int  # chips, every line


@dataclass(frozen=True, slots=True)
class WinPaid:
    TYPE: ClassVar[str] = "win-paid"
    round: int
    amount: int


@dataclass(frozen=True, slots=True)
class RoundVoided:
    TYPE: ClassVar[str] = "round-voided"
    round: int
    reason: str


@dataclass(frozen=True, slots=True)
class StakeRefunded:
    TYPE: ClassVar[str] = "stake-refunded"
    round: int
    amount: int


@dataclass(frozen=True, slots=True)
class DeckClosed:
    TYPE: ClassVar[str] = "deck-closed"
    round: int
    name: str
    reveal: str  # the dealer's reveal record (JSON), for `croupier verify`


@dataclass(frozen=True, slots=True)
class RoundEnded:
    TYPE: ClassVar[str] = "round-ended"
    round: int
    stack: int


Event = (
    PlayerSeated
    | ChipsAdded
    | LeaveRequested
    | PlayerLeft
    | RoundStarted
    | BetTaken
    | DeckOpened
    | HandDealt
    | SplitPlaced
    | HoldChosen
    | StubSplitFound
    | LineDrawn
    | LinesSettled
    | WinPaid
    | RoundVoided
    | StakeRefunded
    | DeckClosed
    | RoundEnded
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        PlayerSeated,
        ChipsAdded,
        LeaveRequested,
        PlayerLeft,
        RoundStarted,
        BetTaken,
        DeckOpened,
        HandDealt,
        SplitPlaced,
        HoldChosen,
        StubSplitFound,
        LineDrawn,
        LinesSettled,
        WinPaid,
        RoundVoided,
        StakeRefunded,
        DeckClosed,
        RoundEnded,
    )
}
