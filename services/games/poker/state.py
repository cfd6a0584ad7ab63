"""Table state: what `apply` folds events into. Immutable; every change makes a new value.

The state classes are plain classes with `Final` fields, `__slots__` and an explicit
constructor, so that mypyc compiles them as native classes (tools/build_engine.py): compiled
code then reads a field as a C struct member and builds a changed copy with one direct
constructor call. They were frozen dataclasses copied through their `__dict__` (a native
class has none), which kept them ordinary Python objects: about a quarter of the compiled
engine's instructions went to dictionary lookups reading their fields (docs/engine.md).
`Final` makes mypy reject any assignment outside `__init__`, and the compiled classes expose
the fields read-only. `__repr__`, `__eq__` and `__hash__` are the dataclass ones
(services/games/values.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, TypeVar

from services.games.cardtext import Card
from services.games.poker.definitions import Betting, Phase, TableConfig
from services.games.ranking import SeatRank
from services.games.values import field_values, fields_repr

_T = TypeVar("_T")


_SEAT_FIELDS: Final = (
    "player",
    "stack",
    "sitting_out",
    "leaving",
    "waiting_for_big_blind",
    "posts_big_blind",
    "missed_hand",
    "timeouts",
)


class SeatState:
    __slots__ = (
        "leaving",
        "missed_hand",
        "player",
        "posts_big_blind",
        "sitting_out",
        "stack",
        "timeouts",
        "waiting_for_big_blind",
    )

    player: Final[str]
    stack: Final[int]
    sitting_out: Final[bool]
    leaving: Final[bool]
    waiting_for_big_blind: Final[bool]
    posts_big_blind: Final[bool]  # returning player who chose to post rather than wait
    missed_hand: Final[bool]  # sitting out while a hand was dealt without them
    timeouts: Final[int]  # consecutive

    def __init__(
        self,
        player: str,
        stack: int,
        sitting_out: bool = False,
        leaving: bool = False,
        waiting_for_big_blind: bool = False,
        posts_big_blind: bool = False,
        missed_hand: bool = False,
        timeouts: int = 0,
    ) -> None:
        self.player = player
        self.stack = stack
        self.sitting_out = sitting_out
        self.leaving = leaving
        self.waiting_for_big_blind = waiting_for_big_blind
        self.posts_big_blind = posts_big_blind
        self.missed_hand = missed_hand
        self.timeouts = timeouts

    def __repr__(self) -> str:
        return fields_repr(self, _SEAT_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is SeatState and field_values(self, _SEAT_FIELDS) == field_values(
            other, _SEAT_FIELDS
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _SEAT_FIELDS))


_PLAYER_FIELDS: Final = (
    "seat",
    "cards",
    "folded",
    "committed",
    "antes",
    "bet",
    "acted",
    "acted_level",
    "drew",
    "awaiting",
    "discards",
    "open_discards",
    "shown",
    "mucked",
    "declared_board",
)


class HandPlayer:
    """One seat's part in the current hand."""

    __slots__ = (
        "acted",
        "acted_level",
        "antes",
        "awaiting",
        "bet",
        "cards",
        "committed",
        "declared_board",
        "discards",
        "drew",
        "folded",
        "mucked",
        "open_discards",
        "seat",
        "shown",
    )

    seat: Final[int]
    cards: Final[tuple[Card, ...]]
    folded: Final[bool]
    committed: Final[int]  # chips put in this hand (antes, blinds, bets)
    antes: Final[int]  # the dead part of `committed`: antes go to the main pot, never matched
    bet: Final[int]  # chips in front of the player this betting round
    acted: Final[bool]  # acted voluntarily this betting round
    acted_level: Final[int]  # the round's bet level when this seat last acted
    drew: Final[bool]  # finished the current draw
    awaiting: Final[int]  # replacement cards owed after discarding
    discards: Final[tuple[Card, ...]]  # face-down discards of the current draw
    open_discards: Final[tuple[Card, ...]]  # public discards
    shown: Final[bool]
    mucked: Final[bool]
    declared_board: Final[bool]

    def __init__(
        self,
        seat: int,
        cards: tuple[Card, ...] = (),
        folded: bool = False,
        committed: int = 0,
        antes: int = 0,
        bet: int = 0,
        acted: bool = False,
        acted_level: int = 0,
        drew: bool = False,
        awaiting: int = 0,
        discards: tuple[Card, ...] = (),
        open_discards: tuple[Card, ...] = (),
        shown: bool = False,
        mucked: bool = False,
        declared_board: bool = False,
    ) -> None:
        self.seat = seat
        self.cards = cards
        self.folded = folded
        self.committed = committed
        self.antes = antes
        self.bet = bet
        self.acted = acted
        self.acted_level = acted_level
        self.drew = drew
        self.awaiting = awaiting
        self.discards = discards
        self.open_discards = open_discards
        self.shown = shown
        self.mucked = mucked
        self.declared_board = declared_board

    def __repr__(self) -> str:
        return fields_repr(self, _PLAYER_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is HandPlayer and field_values(self, _PLAYER_FIELDS) == field_values(
            other, _PLAYER_FIELDS
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _PLAYER_FIELDS))


_HAND_FIELDS: Final = (
    "number",
    "button",
    "players",
    "big_blind_seat",
    "phase",
    "board",
    "dealt_phase",
    "current_bet",
    "min_raise",
    "bets_made",
    "capped",
    "to_act",
    "last_aggressor",
    "out",
    "burned",
    "discard_pile",
    "ranks",
    "board_rank",
    "showdown_order",
    "reached_second_round",
)


class HandState:
    __slots__ = (
        "bets_made",
        "big_blind_seat",
        "board",
        "board_rank",
        "burned",
        "button",
        "capped",
        "current_bet",
        "dealt_phase",
        "discard_pile",
        "last_aggressor",
        "min_raise",
        "number",
        "out",
        "phase",
        "players",
        "ranks",
        "reached_second_round",
        "showdown_order",
        "to_act",
    )

    number: Final[int]
    button: Final[int]
    players: Final[tuple[HandPlayer, ...]]  # seat order
    big_blind_seat: Final[int | None]
    phase: Final[int]
    board: Final[tuple[Card, ...]]
    dealt_phase: Final[int]  # the last dealing phase whose cards arrived
    current_bet: Final[int]
    min_raise: Final[int]  # size of the last full bet or raise this round (no-limit/pot-limit)
    bets_made: Final[int]  # bet + raises this round (fixed-limit cap)
    capped: Final[bool]  # whether the fixed-limit raise cap applies this round
    to_act: Final[int | None]
    last_aggressor: Final[int | None]
    out: Final[frozenset[Card]]  # cards not in the stub: dealt, burned, discarded
    burned: Final[tuple[Card, ...]]
    discard_pile: Final[tuple[Card, ...]]  # discards not yet reshuffled
    ranks: Final[tuple[tuple[int, SeatRank], ...] | None]
    board_rank: Final[SeatRank | None]
    showdown_order: Final[tuple[int, ...]]
    reached_second_round: Final[bool]  # for "no flop, no drop"

    def __init__(
        self,
        number: int,
        button: int,
        players: tuple[HandPlayer, ...],
        big_blind_seat: int | None = None,
        phase: int = -1,
        board: tuple[Card, ...] = (),
        dealt_phase: int = -1,
        current_bet: int = 0,
        min_raise: int = 0,
        bets_made: int = 0,
        capped: bool = True,
        to_act: int | None = None,
        last_aggressor: int | None = None,
        out: frozenset[Card] = frozenset(),
        burned: tuple[Card, ...] = (),
        discard_pile: tuple[Card, ...] = (),
        ranks: tuple[tuple[int, SeatRank], ...] | None = None,
        board_rank: SeatRank | None = None,
        showdown_order: tuple[int, ...] = (),
        reached_second_round: bool = False,
    ) -> None:
        self.number = number
        self.button = button
        self.players = players
        self.big_blind_seat = big_blind_seat
        self.phase = phase
        self.board = board
        self.dealt_phase = dealt_phase
        self.current_bet = current_bet
        self.min_raise = min_raise
        self.bets_made = bets_made
        self.capped = capped
        self.to_act = to_act
        self.last_aggressor = last_aggressor
        self.out = out
        self.burned = burned
        self.discard_pile = discard_pile
        self.ranks = ranks
        self.board_rank = board_rank
        self.showdown_order = showdown_order
        self.reached_second_round = reached_second_round

    def __repr__(self) -> str:
        return fields_repr(self, _HAND_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is HandState and field_values(self, _HAND_FIELDS) == field_values(
            other, _HAND_FIELDS
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _HAND_FIELDS))

    def player(self, seat: int) -> HandPlayer:
        for p in self.players:
            if p.seat == seat:
                return p
        raise KeyError(seat)

    def index(self, seat: int) -> int:
        for i, p in enumerate(self.players):
            if p.seat == seat:
                return i
        raise KeyError(seat)

    def contenders(self) -> list[HandPlayer]:
        return [p for p in self.players if not p.folded]

    def clockwise_from(self, seat: int, include: bool = False) -> Iterator[HandPlayer]:
        """Players in the hand clockwise starting left of `seat` (or at it, if `include`)."""
        players = self.players
        n = len(players)
        start = 0
        for i, p in enumerate(players):
            if (p.seat >= seat) if include else (p.seat > seat):
                start = i
                break
        else:
            start = 0
        for k in range(n):
            yield players[(start + k) % n]

    def pot_total(self) -> int:
        return sum(p.committed for p in self.players)

    def rank_of(self, seat: int) -> SeatRank | None:
        for s, r in self.ranks or ():
            if s == seat:
                return r
        return None


_TABLE_FIELDS: Final = (
    "config",
    "seats",
    "hand",
    "last_hand",
    "last_button",
)


class TableState:
    __slots__ = (
        "config",
        "hand",
        "last_button",
        "last_hand",
        "seats",
    )

    config: Final[TableConfig]
    seats: Final[tuple[SeatState | None, ...]]
    hand: Final[HandState | None]
    last_hand: Final[int]  # number of the most recent hand started
    last_button: Final[int | None]

    def __init__(
        self,
        config: TableConfig,
        seats: tuple[SeatState | None, ...],
        hand: HandState | None = None,
        last_hand: int = 0,
        last_button: int | None = None,
    ) -> None:
        self.config = config
        self.seats = seats
        self.hand = hand
        self.last_hand = last_hand
        self.last_button = last_button

    def __repr__(self) -> str:
        return fields_repr(self, _TABLE_FIELDS)

    def __eq__(self, other: object) -> bool:
        return type(other) is TableState and field_values(self, _TABLE_FIELDS) == field_values(
            other, _TABLE_FIELDS
        )

    def __hash__(self) -> int:
        return hash(field_values(self, _TABLE_FIELDS))

    def seat(self, seat: int) -> SeatState | None:
        return self.seats[seat] if 0 <= seat < len(self.seats) else None

    def stack(self, seat: int) -> int:
        s = self.seats[seat]
        return s.stack if s is not None else 0

    def phase(self) -> Phase | None:
        hand = self.hand
        if hand is None or not 0 <= hand.phase < len(self.config.game.phases):
            return None
        return self.config.game.phases[hand.phase]

    def in_betting(self) -> bool:
        return isinstance(self.phase(), Betting)


_FIELDS_OF: Final[dict[type, tuple[str, ...]]] = {
    SeatState: _SEAT_FIELDS,
    HandPlayer: _PLAYER_FIELDS,
    HandState: _HAND_FIELDS,
    TableState: _TABLE_FIELDS,
}


def evolve(obj: _T, **changes: Any) -> _T:
    """A copy of a state object with some fields changed (no validation). For the rare
    events: the hot reducer handlers call the constructor with every field instead."""
    fields = {name: getattr(obj, name) for name in _FIELDS_OF[type(obj)]}
    fields.update(changes)
    return type(obj)(**fields)


def new_table(config: TableConfig) -> TableState:
    return TableState(config=config, seats=(None,) * config.seats)
