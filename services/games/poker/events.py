"""Events: immutable records of what happened, each with a stable `TYPE` name.

Events carry everything needed to replay a table without any other service: dealt and
burned cards, hand ranks from the evaluator, pot splits and rake. `apply` folds them into
`TableState` without validating. Field names are part of the stored format: add fields with
defaults, never rename.

The classes are plain classes with `Final` fields, `__slots__` and explicit constructors,
compiled by mypyc as native classes like the state classes (services/games/values.py says
why not dataclasses): the engine builds about fifty events per hand, and a frozen dataclass
cost about 9k instructions to build from compiled code. `FIELDS` lists each class's fields
with their annotations as written: the table codec reads names and types from it (a compiled
class keeps no annotations), and tests/unit/games/poker/test_events.py checks it against the
annotations below.
"""

from __future__ import annotations

from typing import ClassVar, Final

from services.games.cardtext import Card
from services.games.poker.definitions import TableConfig
from services.games.ranking import SeatRank
from services.games.values import field_values, fields_repr


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


class _Record:
    """What every event class shares: the dataclass `__repr__`, `__eq__` and `__hash__`,
    over the fields named in `FIELDS`."""

    __slots__ = ()

    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()

    def _names(self) -> tuple[str, ...]:
        return tuple([name for name, _ in type(self).FIELDS])

    def __repr__(self) -> str:
        return fields_repr(self, self._names())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        names = self._names()
        return field_values(self, names) == field_values(other, names)

    def __hash__(self) -> int:
        return hash(field_values(self, self._names()))


class TableOpened(_Record):
    TYPE: ClassVar[str] = "TableOpened"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("config", "TableConfig"),)
    __slots__ = ("config",)

    config: Final[TableConfig]

    def __init__(
        self,
        config: TableConfig,
    ) -> None:
        self.config = config


class PlayerSeated(_Record):
    TYPE: ClassVar[str] = "PlayerSeated"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("player", "str"),
        ("stack", "int"),
    )
    __slots__ = (
        "player",
        "seat",
        "stack",
    )

    seat: Final[int]
    player: Final[str]
    stack: Final[int]

    def __init__(
        self,
        seat: int,
        player: str,
        stack: int,
    ) -> None:
        self.seat = seat
        self.player = player
        self.stack = stack


class LeaveRequested(_Record):
    """The player leaves once the current hand is over."""

    TYPE: ClassVar[str] = "LeaveRequested"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "int"),)
    __slots__ = ("seat",)

    seat: Final[int]

    def __init__(
        self,
        seat: int,
    ) -> None:
        self.seat = seat


class PlayerLeft(_Record):
    """The seat is free; `stack` chips go back to the player (through the ledger)."""

    TYPE: ClassVar[str] = "PlayerLeft"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("player", "str"),
        ("stack", "int"),
    )
    __slots__ = (
        "player",
        "seat",
        "stack",
    )

    seat: Final[int]
    player: Final[str]
    stack: Final[int]

    def __init__(
        self,
        seat: int,
        player: str,
        stack: int,
    ) -> None:
        self.seat = seat
        self.player = player
        self.stack = stack


class PlayerSatOut(_Record):
    TYPE: ClassVar[str] = "PlayerSatOut"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("reason", "str"),
    )
    __slots__ = (
        "reason",
        "seat",
    )

    seat: Final[int]
    reason: Final[str]  # "requested" or "timeouts"

    def __init__(
        self,
        seat: int,
        reason: str = "requested",
    ) -> None:
        self.seat = seat
        self.reason = reason


class PlayerSatIn(_Record):
    """Back in: either posts a big blind next hand or waits for the big blind to reach them."""

    TYPE: ClassVar[str] = "PlayerSatIn"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("post_big_blind", "bool"),
    )
    __slots__ = (
        "post_big_blind",
        "seat",
    )

    seat: Final[int]
    post_big_blind: Final[bool]

    def __init__(
        self,
        seat: int,
        post_big_blind: bool = False,
    ) -> None:
        self.seat = seat
        self.post_big_blind = post_big_blind


class ChipsAdded(_Record):
    TYPE: ClassVar[str] = "ChipsAdded"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("amount", "int"),
    )
    __slots__ = (
        "amount",
        "seat",
    )

    seat: Final[int]
    amount: Final[int]

    def __init__(
        self,
        seat: int,
        amount: int,
    ) -> None:
        self.seat = seat
        self.amount = amount


class HandStarted(_Record):
    """`seats` are the seats dealt in (seat order); `stacks` their stacks before forced bets."""

    TYPE: ClassVar[str] = "HandStarted"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("hand", "int"),
        ("button", "int"),
        ("seats", "tuple[int, ...]"),
        ("stacks", "tuple[int, ...]"),
        ("small_blind_seat", "int | None"),
        ("big_blind_seat", "int | None"),
    )
    __slots__ = (
        "big_blind_seat",
        "button",
        "hand",
        "seats",
        "small_blind_seat",
        "stacks",
    )

    hand: Final[int]
    button: Final[int]
    seats: Final[tuple[int, ...]]
    stacks: Final[tuple[int, ...]]
    small_blind_seat: Final[int | None]
    big_blind_seat: Final[int | None]

    def __init__(
        self,
        hand: int,
        button: int,
        seats: tuple[int, ...],
        stacks: tuple[int, ...],
        small_blind_seat: int | None = None,
        big_blind_seat: int | None = None,
    ) -> None:
        self.hand = hand
        self.button = button
        self.seats = seats
        self.stacks = stacks
        self.small_blind_seat = small_blind_seat
        self.big_blind_seat = big_blind_seat


class ForcedBetPosted(_Record):
    """kind: "ante" (dead), "small-blind", "big-blind" or "returning-blind" (live)."""

    TYPE: ClassVar[str] = "ForcedBetPosted"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("kind", "str"),
        ("amount", "int"),
    )
    __slots__ = (
        "amount",
        "kind",
        "seat",
    )

    seat: Final[int]
    kind: Final[str]
    amount: Final[int]

    def __init__(
        self,
        seat: int,
        kind: str,
        amount: int,
    ) -> None:
        self.seat = seat
        self.kind = kind
        self.amount = amount


class PhaseStarted(_Record):
    """The hand moves to `phase` (an index into the game definition's phases)."""

    TYPE: ClassVar[str] = "PhaseStarted"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("phase", "int"),
        ("name", "str"),
    )
    __slots__ = (
        "name",
        "phase",
    )

    phase: Final[int]
    name: Final[str]

    def __init__(
        self,
        phase: int,
        name: str,
    ) -> None:
        self.phase = phase
        self.name = name


class CardsDealt(_Record):
    """`seat` None means the board. `burned` are burned before a board deal (never shown)."""

    TYPE: ClassVar[str] = "CardsDealt"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int | None"),
        ("cards", "tuple[Card, ...]"),
        ("face_up", "bool"),
        ("burned", "tuple[Card, ...]"),
    )
    __slots__ = (
        "burned",
        "cards",
        "face_up",
        "seat",
    )

    seat: Final[int | None]
    cards: Final[tuple[Card, ...]]
    face_up: Final[bool]
    burned: Final[tuple[Card, ...]]

    def __init__(
        self,
        seat: int | None,
        cards: tuple[Card, ...],
        face_up: bool = False,
        burned: tuple[Card, ...] = (),
    ) -> None:
        self.seat = seat
        self.cards = cards
        self.face_up = face_up
        self.burned = burned


class ActionTaken(_Record):
    """A betting action. `to` is the seat's round bet afterwards; `added` the chips put in."""

    TYPE: ClassVar[str] = "ActionTaken"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("action", "str"),
        ("to", "int"),
        ("added", "int"),
        ("all_in", "bool"),
    )
    __slots__ = (
        "action",
        "added",
        "all_in",
        "seat",
        "to",
    )

    seat: Final[int]
    action: Final[str]
    to: Final[int]
    added: Final[int]
    all_in: Final[bool]

    def __init__(
        self,
        seat: int,
        action: str,
        to: int = 0,
        added: int = 0,
        all_in: bool = False,
    ) -> None:
        self.seat = seat
        self.action = action
        self.to = to
        self.added = added
        self.all_in = all_in


class TimedOut(_Record):
    """The seat's clock ran out; the default action follows as its own event."""

    TYPE: ClassVar[str] = "TimedOut"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "int"),)
    __slots__ = ("seat",)

    seat: Final[int]

    def __init__(
        self,
        seat: int,
    ) -> None:
        self.seat = seat


class UncalledBetReturned(_Record):
    TYPE: ClassVar[str] = "UncalledBetReturned"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("amount", "int"),
    )
    __slots__ = (
        "amount",
        "seat",
    )

    seat: Final[int]
    amount: Final[int]

    def __init__(
        self,
        seat: int,
        amount: int,
    ) -> None:
        self.seat = seat
        self.amount = amount


class CardsDiscarded(_Record):
    """An empty `cards` tuple means the seat stood pat. Face-up discards are public."""

    TYPE: ClassVar[str] = "CardsDiscarded"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("cards", "tuple[Card, ...]"),
        ("face_up", "bool"),
    )
    __slots__ = (
        "cards",
        "face_up",
        "seat",
    )

    seat: Final[int]
    cards: Final[tuple[Card, ...]]
    face_up: Final[bool]

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
        face_up: bool = False,
    ) -> None:
        self.seat = seat
        self.cards = cards
        self.face_up = face_up


class DiscardsReshuffled(_Record):
    """The dealer shuffled these discards back into the stub so the draw can go on."""

    TYPE: ClassVar[str] = "DiscardsReshuffled"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("cards", "tuple[Card, ...]"),)
    __slots__ = ("cards",)

    cards: Final[tuple[Card, ...]]

    def __init__(
        self,
        cards: tuple[Card, ...],
    ) -> None:
        self.cards = cards


class HandsRanked(_Record):
    """Values from the ranking function (the evaluator): every contender's, and the board's."""

    TYPE: ClassVar[str] = "HandsRanked"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("ranks", "tuple[tuple[int, SeatRank], ...]"),
        ("board", "SeatRank | None"),
    )
    __slots__ = (
        "board",
        "ranks",
    )

    ranks: Final[tuple[tuple[int, SeatRank], ...]]
    board: Final[SeatRank | None]

    def __init__(
        self,
        ranks: tuple[tuple[int, SeatRank], ...],
        board: SeatRank | None = None,
    ) -> None:
        self.ranks = ranks
        self.board = board


class CardsShown(_Record):
    TYPE: ClassVar[str] = "CardsShown"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("cards", "tuple[Card, ...]"),
    )
    __slots__ = (
        "cards",
        "seat",
    )

    seat: Final[int]
    cards: Final[tuple[Card, ...]]

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...],
    ) -> None:
        self.seat = seat
        self.cards = cards


class HandMucked(_Record):
    TYPE: ClassVar[str] = "HandMucked"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "int"),)
    __slots__ = ("seat",)

    seat: Final[int]

    def __init__(
        self,
        seat: int,
    ) -> None:
        self.seat = seat


class BoardDeclared(_Record):
    """The seat claims with the board as its hand, without showing its hole cards."""

    TYPE: ClassVar[str] = "BoardDeclared"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("seat", "int"),)
    __slots__ = ("seat",)

    seat: Final[int]

    def __init__(
        self,
        seat: int,
    ) -> None:
        self.seat = seat


class Share(_Record):
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("seat", "int"),
        ("amount", "int"),
        ("half", "str"),
    )
    __slots__ = (
        "amount",
        "half",
        "seat",
    )

    seat: Final[int]
    amount: Final[int]
    half: Final[str]  # "all", "high" or "low"

    def __init__(
        self,
        seat: int,
        amount: int,
        half: str = "all",
    ) -> None:
        self.seat = seat
        self.amount = amount
        self.half = half


class PotAwarded(_Record):
    """Pot `pot` (0 = main) of `amount` chips: `rake` to the house, the rest in `shares`."""

    TYPE: ClassVar[str] = "PotAwarded"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("pot", "int"),
        ("amount", "int"),
        ("eligible", "tuple[int, ...]"),
        ("shares", "tuple[Share, ...]"),
        ("rake", "int"),
    )
    __slots__ = (
        "amount",
        "eligible",
        "pot",
        "rake",
        "shares",
    )

    pot: Final[int]
    amount: Final[int]
    eligible: Final[tuple[int, ...]]
    shares: Final[tuple[Share, ...]]
    rake: Final[int]

    def __init__(
        self,
        pot: int,
        amount: int,
        eligible: tuple[int, ...],
        shares: tuple[Share, ...],
        rake: int = 0,
    ) -> None:
        self.pot = pot
        self.amount = amount
        self.eligible = eligible
        self.shares = shares
        self.rake = rake


class HandEnded(_Record):
    TYPE: ClassVar[str] = "HandEnded"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("hand", "int"),
        ("stacks", "tuple[tuple[int, int], ...]"),
    )
    __slots__ = (
        "hand",
        "stacks",
    )

    hand: Final[int]
    stacks: Final[tuple[tuple[int, int], ...]]  # (seat, stack) of every seated player

    def __init__(
        self,
        hand: int,
        stacks: tuple[tuple[int, int], ...],
    ) -> None:
        self.hand = hand
        self.stacks = stacks


class HandVoided(_Record):
    """The hand could not finish: every chip committed goes back to its owner."""

    TYPE: ClassVar[str] = "HandVoided"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("hand", "int"),
        ("reason", "str"),
        ("refunds", "tuple[tuple[int, int], ...]"),
    )
    __slots__ = (
        "hand",
        "reason",
        "refunds",
    )

    hand: Final[int]
    reason: Final[str]
    refunds: Final[tuple[tuple[int, int], ...]]

    def __init__(
        self,
        hand: int,
        reason: str,
        refunds: tuple[tuple[int, int], ...],
    ) -> None:
        self.hand = hand
        self.reason = reason
        self.refunds = refunds


class DeckCommitted(_Record):
    """The dealer's shuffle `shuffle_id` will deal hand `hand`; its commitment is public before
    its first card (opened one hand ahead, so players can add entropy for a whole hand)."""

    TYPE: ClassVar[str] = "DeckCommitted"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("hand", "int"),
        ("shuffle_id", "str"),
        ("commitment", "str"),
    )
    __slots__ = (
        "commitment",
        "hand",
        "shuffle_id",
    )

    hand: Final[int]
    shuffle_id: Final[str]
    commitment: Final[str]

    def __init__(
        self,
        hand: int,
        shuffle_id: str,
        commitment: str,
    ) -> None:
        self.hand = hand
        self.shuffle_id = shuffle_id
        self.commitment = commitment


class DeckRevealed(_Record):
    """Hand `hand` is over and its shuffle is closed: `reveal` is the dealer's record of it
    (JSON), with which anyone can check every card (`croupier verify`)."""

    TYPE: ClassVar[str] = "DeckRevealed"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("hand", "int"),
        ("shuffle_id", "str"),
        ("reveal", "str"),
    )
    __slots__ = (
        "hand",
        "reveal",
        "shuffle_id",
    )

    hand: Final[int]
    shuffle_id: Final[str]
    reveal: Final[str]

    def __init__(
        self,
        hand: int,
        shuffle_id: str,
        reveal: str,
    ) -> None:
        self.hand = hand
        self.shuffle_id = shuffle_id
        self.reveal = reveal


class RakeSettled(_Record):
    """The rake of hand `hand` moved from the table's escrow to the house (ledger key `key`)."""

    TYPE: ClassVar[str] = "RakeSettled"
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("hand", "int"),
        ("amount", "int"),
        ("key", "str"),
    )
    __slots__ = (
        "amount",
        "hand",
        "key",
    )

    hand: Final[int]
    amount: Final[int]
    key: Final[str]

    def __init__(
        self,
        hand: int,
        amount: int,
        key: str,
    ) -> None:
        self.hand = hand
        self.amount = amount
        self.key = key


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
    )
}
