"""Events: frozen records of what happened, each with a stable `TYPE` name.

Events carry everything needed to replay a table without any other service: dealt and
burned cards, hand ranks from the evaluator, pot splits and rake. `apply` folds them into
`TableState` without validating. Field names are part of the stored format: add fields with
defaults, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from services.games.cardtext import Card
from services.games.definitions import TableConfig
from services.games.ranking import SeatRank


class Action:
    """Action names as used in `Act` commands, `ActionTaken` events and `LegalActions`."""

    FOLD: Final = "fold"
    CHECK: Final = "check"
    CALL: Final = "call"
    BET: Final = "bet"
    RAISE: Final = "raise"
    ALL_IN: Final = "all-in"
    DISCARD: Final = "discard"
    OPEN_DISCARD: Final = "open-discard"
    SHOW: Final = "show"
    MUCK: Final = "muck"
    DECLARE_BOARD: Final = "declare-board"

    BETTING: Final = frozenset({FOLD, CHECK, CALL, BET, RAISE, ALL_IN})
    ALL: Final = frozenset({*BETTING, DISCARD, OPEN_DISCARD, SHOW, MUCK, DECLARE_BOARD})


@dataclass(frozen=True, slots=True)
class TableOpened:
    TYPE: ClassVar[str] = "TableOpened"
    config: TableConfig


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    TYPE: ClassVar[str] = "PlayerSeated"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    """The player leaves once the current hand is over."""

    TYPE: ClassVar[str] = "LeaveRequested"
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """The seat is free; `stack` chips go back to the player (through the ledger)."""

    TYPE: ClassVar[str] = "PlayerLeft"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    TYPE: ClassVar[str] = "PlayerSatOut"
    seat: int
    reason: str = "requested"  # "requested" or "timeouts"


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    """Back in: either posts a big blind next hand or waits for the big blind to reach them."""

    TYPE: ClassVar[str] = "PlayerSatIn"
    seat: int
    post_big_blind: bool = False


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    TYPE: ClassVar[str] = "ChipsAdded"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """`seats` are the seats dealt in (seat order); `stacks` their stacks before forced bets."""

    TYPE: ClassVar[str] = "HandStarted"
    hand: int
    button: int
    seats: tuple[int, ...]
    stacks: tuple[int, ...]
    small_blind_seat: int | None = None
    big_blind_seat: int | None = None


@dataclass(frozen=True, slots=True)
class ForcedBetPosted:
    """kind: "ante" (dead), "small-blind", "big-blind" or "returning-blind" (live)."""

    TYPE: ClassVar[str] = "ForcedBetPosted"
    seat: int
    kind: str
    amount: int


@dataclass(frozen=True, slots=True)
class PhaseStarted:
    """The hand moves to `phase` (an index into the game definition's phases)."""

    TYPE: ClassVar[str] = "PhaseStarted"
    phase: int
    name: str


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """`seat` None means the board. `burned` are burned before a board deal (never shown)."""

    TYPE: ClassVar[str] = "CardsDealt"
    seat: int | None
    cards: tuple[Card, ...]
    face_up: bool = False
    burned: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """A betting action. `to` is the seat's round bet afterwards; `added` the chips put in."""

    TYPE: ClassVar[str] = "ActionTaken"
    seat: int
    action: str
    to: int = 0
    added: int = 0
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The seat's clock ran out; the default action follows as its own event."""

    TYPE: ClassVar[str] = "TimedOut"
    seat: int


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    TYPE: ClassVar[str] = "UncalledBetReturned"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    """An empty `cards` tuple means the seat stood pat. Face-up discards are public."""

    TYPE: ClassVar[str] = "CardsDiscarded"
    seat: int
    cards: tuple[Card, ...]
    face_up: bool = False


@dataclass(frozen=True, slots=True)
class DiscardsReshuffled:
    """The dealer shuffled these discards back into the stub so the draw can go on."""

    TYPE: ClassVar[str] = "DiscardsReshuffled"
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandsRanked:
    """Values from the ranking function (the evaluator): every contender's, and the board's."""

    TYPE: ClassVar[str] = "HandsRanked"
    ranks: tuple[tuple[int, SeatRank], ...]
    board: SeatRank | None = None


@dataclass(frozen=True, slots=True)
class CardsShown:
    TYPE: ClassVar[str] = "CardsShown"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandMucked:
    TYPE: ClassVar[str] = "HandMucked"
    seat: int


@dataclass(frozen=True, slots=True)
class BoardDeclared:
    """The seat claims with the board as its hand, without showing its hole cards."""

    TYPE: ClassVar[str] = "BoardDeclared"
    seat: int


@dataclass(frozen=True, slots=True)
class Share:
    seat: int
    amount: int
    half: str = "all"  # "all", "high" or "low"


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """Pot `pot` (0 = main) of `amount` chips: `rake` to the house, the rest in `shares`."""

    TYPE: ClassVar[str] = "PotAwarded"
    pot: int
    amount: int
    eligible: tuple[int, ...]
    shares: tuple[Share, ...]
    rake: int = 0


@dataclass(frozen=True, slots=True)
class HandEnded:
    TYPE: ClassVar[str] = "HandEnded"
    hand: int
    stacks: tuple[tuple[int, int], ...]  # (seat, stack) of every seated player


@dataclass(frozen=True, slots=True)
class HandVoided:
    """The hand could not finish: every chip committed goes back to its owner."""

    TYPE: ClassVar[str] = "HandVoided"
    hand: int
    reason: str
    refunds: tuple[tuple[int, int], ...]


Event = (
    TableOpened
    | PlayerSeated
    | LeaveRequested
    | PlayerLeft
    | PlayerSatOut
    | PlayerSatIn
    | ChipsAdded
    | HandStarted
    | ForcedBetPosted
    | PhaseStarted
    | CardsDealt
    | ActionTaken
    | TimedOut
    | UncalledBetReturned
    | CardsDiscarded
    | DiscardsReshuffled
    | HandsRanked
    | CardsShown
    | HandMucked
    | BoardDeclared
    | PotAwarded
    | HandEnded
    | HandVoided
)

EVENT_TYPES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (
        TableOpened,
        PlayerSeated,
        LeaveRequested,
        PlayerLeft,
        PlayerSatOut,
        PlayerSatIn,
        ChipsAdded,
        HandStarted,
        ForcedBetPosted,
        PhaseStarted,
        CardsDealt,
        ActionTaken,
        TimedOut,
        UncalledBetReturned,
        CardsDiscarded,
        DiscardsReshuffled,
        HandsRanked,
        CardsShown,
        HandMucked,
        BoardDeclared,
        PotAwarded,
        HandEnded,
        HandVoided,
    )
}
