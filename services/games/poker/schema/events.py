"""Events: immutable records of what happened, each with a stable `TYPE` name.

Events carry everything needed to replay a table without any other service: dealt and
burned cards, hand ranks from the evaluator, pot splits and rake. `apply` folds them into
`TableState` without validating. Field names are part of the stored format: add fields with
defaults, never rename.

Each event is declared once, here (tools/gen_records.py writes services/games/poker/events.py
from it): a native class under mypyc, as the state classes are (services/games/values.py says
why not dataclasses; a frozen dataclass cost about 9k instructions to build from compiled
code, and the engine builds about fifty events a hand). Its `FIELDS` table is what the table
codec stores and reads (a compiled class keeps no annotations).
"""

from __future__ import annotations

from typing import ClassVar, Final

from services.games.cardtext import Card
from services.games.poker.definitions import TableConfig
from services.games.ranking import SeatRank
from services.games.values import Record


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


class TableOpened(Record):
    TYPE: ClassVar[str] = "TableOpened"
    config: TableConfig


class PlayerSeated(Record):
    TYPE: ClassVar[str] = "PlayerSeated"
    seat: int
    player: str
    stack: int


class LeaveRequested(Record):
    """The player leaves once the current hand is over."""

    TYPE: ClassVar[str] = "LeaveRequested"
    seat: int


class PlayerLeft(Record):
    """The seat is free; `stack` chips go back to the player (through the ledger)."""

    TYPE: ClassVar[str] = "PlayerLeft"
    seat: int
    player: str
    stack: int


class PlayerSatOut(Record):
    TYPE: ClassVar[str] = "PlayerSatOut"
    seat: int
    reason: str = "requested"  # "requested" or "timeouts"


class PlayerSatIn(Record):
    """Back in: either posts a big blind next hand or waits for the big blind to reach them."""

    TYPE: ClassVar[str] = "PlayerSatIn"
    seat: int
    post_big_blind: bool = False


class ChipsAdded(Record):
    TYPE: ClassVar[str] = "ChipsAdded"
    seat: int
    amount: int


class HandStarted(Record):
    """`seats` are the seats dealt in (seat order); `stacks` their stacks before forced bets."""

    TYPE: ClassVar[str] = "HandStarted"
    hand: int
    button: int
    seats: tuple[int, ...]
    stacks: tuple[int, ...]
    small_blind_seat: int | None = None
    big_blind_seat: int | None = None


class ForcedBetPosted(Record):
    """kind: "ante" (dead), "small-blind", "big-blind" or "returning-blind" (live)."""

    TYPE: ClassVar[str] = "ForcedBetPosted"
    seat: int
    kind: str
    amount: int


class PhaseStarted(Record):
    """The hand moves to `phase` (an index into the game definition's phases)."""

    TYPE: ClassVar[str] = "PhaseStarted"
    phase: int
    name: str


class CardsDealt(Record):
    """`seat` None means the board. `burned` are burned before a board deal (never shown)."""

    TYPE: ClassVar[str] = "CardsDealt"
    seat: int | None
    cards: tuple[Card, ...]
    face_up: bool = False
    burned: tuple[Card, ...] = ()


class ActionTaken(Record):
    """A betting action. `to` is the seat's round bet afterwards; `added` the chips put in."""

    TYPE: ClassVar[str] = "ActionTaken"
    seat: int
    action: str
    to: int = 0
    added: int = 0
    all_in: bool = False


class TimedOut(Record):
    """The seat's clock ran out; the default action follows as its own event."""

    TYPE: ClassVar[str] = "TimedOut"
    seat: int


class UncalledBetReturned(Record):
    TYPE: ClassVar[str] = "UncalledBetReturned"
    seat: int
    amount: int


class CardsDiscarded(Record):
    """An empty `cards` tuple means the seat stood pat. Face-up discards are public."""

    TYPE: ClassVar[str] = "CardsDiscarded"
    seat: int
    cards: tuple[Card, ...]
    face_up: bool = False


class DiscardsReshuffled(Record):
    """The dealer shuffled these discards back into the stub so the draw can go on."""

    TYPE: ClassVar[str] = "DiscardsReshuffled"
    cards: tuple[Card, ...]


class HandsRanked(Record):
    """Values from the ranking function (the evaluator): every contender's, and the board's."""

    TYPE: ClassVar[str] = "HandsRanked"
    ranks: tuple[tuple[int, SeatRank], ...]
    board: SeatRank | None = None


class CardsShown(Record):
    TYPE: ClassVar[str] = "CardsShown"
    seat: int
    cards: tuple[Card, ...]


class HandMucked(Record):
    TYPE: ClassVar[str] = "HandMucked"
    seat: int


class BoardDeclared(Record):
    """The seat claims with the board as its hand, without showing its hole cards."""

    TYPE: ClassVar[str] = "BoardDeclared"
    seat: int


class Share(Record):
    seat: int
    amount: int
    half: str = "all"  # "all", "high" or "low"


class PotAwarded(Record):
    """Pot `pot` (0 = main) of `amount` chips: `rake` to the house, the rest in `shares`."""

    TYPE: ClassVar[str] = "PotAwarded"
    pot: int
    amount: int
    eligible: tuple[int, ...]
    shares: tuple[Share, ...]
    rake: int = 0


class HandEnded(Record):
    TYPE: ClassVar[str] = "HandEnded"
    hand: int
    stacks: tuple[tuple[int, int], ...]  # (seat, stack) of every seated player


class HandVoided(Record):
    """The hand could not finish: every chip committed goes back to its owner."""

    TYPE: ClassVar[str] = "HandVoided"
    hand: int
    reason: str
    refunds: tuple[tuple[int, int], ...]


class DeckCommitted(Record):
    """The dealer's shuffle `shuffle_id` will deal hand `hand`; its commitment is public before
    its first card (opened one hand ahead, so players can add entropy for a whole hand)."""

    TYPE: ClassVar[str] = "DeckCommitted"
    hand: int
    shuffle_id: str
    commitment: str


class DeckRevealed(Record):
    """Hand `hand` is over and its shuffle is closed: `reveal` is the dealer's record of it
    (JSON), with which anyone can check every card (`croupier verify`)."""

    TYPE: ClassVar[str] = "DeckRevealed"
    hand: int
    shuffle_id: str
    reveal: str


class RakeSettled(Record):
    """The rake of hand `hand` moved from the table's escrow to the house (ledger key `key`)."""

    TYPE: ClassVar[str] = "RakeSettled"
    hand: int
    amount: int
    key: str


# --- a live-dealer table (services/games/poker/live): what the dealer reported and what the
# irregularity procedures made of it. Only a table opened with `live_dealer` records them.


class CardReported(Record):
    """The live dealer reported a card leaving the deck of hand `hand`: `to` is "seat" (to
    seat `seat`), "board" or "burn"; `face_up` when it was dealt (or fell) face up."""

    TYPE: ClassVar[str] = "CardReported"
    hand: int
    card: str  # a Card, or HIDDEN in a view that may not see it
    to: str
    seat: int | None = None
    face_up: bool = False


class IrregularityReported(Record):
    """The dealer declared an irregularity the cards alone do not show, with its `reason` in
    the dealer's words: `kind` "misdeal", or "card_exposed" (the face-down hole `card`)."""

    TYPE: ClassVar[str] = "IrregularityReported"
    hand: int
    kind: str
    reason: str
    card: str = ""


class BettingRoundClosed(Record):
    """A live hand's betting round is complete: the dealer deals the next street now."""

    TYPE: ClassVar[str] = "BettingRoundClosed"
    hand: int


class ProcedureApplied(Record):
    """What the rules prescribe after a live report (docs/games/irregularities.md): `kind` is
    misdeal, card_exposed, exposed_card_burned, exposed_card_replaced, flop_redealt,
    card_out_of_play, deck_reshuffled, extra_card_burned or extra_card_returned; `cards` the
    public cards it concerns; `explanation` what it means, for the players."""

    TYPE: ClassVar[str] = "ProcedureApplied"
    hand: int
    kind: str
    explanation: str
    cards: tuple[Card, ...] = ()
    seat: int | None = None


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
    | DeckCommitted
    | DeckRevealed
    | RakeSettled
    | CardReported
    | IrregularityReported
    | BettingRoundClosed
    | ProcedureApplied
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
        DeckCommitted,
        DeckRevealed,
        RakeSettled,
        CardReported,
        IrregularityReported,
        BettingRoundClosed,
        ProcedureApplied,
    )
}
