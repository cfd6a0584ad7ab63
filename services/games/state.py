"""Table state: what `apply` folds events into. Frozen; every change makes a new value.

The state classes are frozen dataclasses without __slots__ so that `evolve` can copy their
__dict__: it is about seven times faster than dataclasses.replace, which dominated the
engine's profile (replace re-runs __init__, one object.__setattr__ per field). For the same
reason they stay ordinary Python classes when mypyc compiles the engine
(`mypyc_attr(native_class=False)`, tools/build_engine.py): a native class has no __dict__.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from mypy_extensions import mypyc_attr

from services.games.cardtext import Card
from services.games.definitions import Betting, Phase, TableConfig
from services.games.ranking import SeatRank

_T = TypeVar("_T")


_new = object.__new__
_set = object.__setattr__


def evolve(obj: _T, **changes: Any) -> _T:
    """A copy of a frozen state object with some fields changed (no validation)."""
    new = _new(obj.__class__)
    fields = obj.__dict__.copy()
    fields.update(changes)
    _set(new, "__dict__", fields)
    return new


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class SeatState:
    player: str
    stack: int
    sitting_out: bool = False
    leaving: bool = False
    waiting_for_big_blind: bool = False
    posts_big_blind: bool = False  # returning player who chose to post rather than wait
    missed_hand: bool = False  # sitting out while a hand was dealt without them
    timeouts: int = 0  # consecutive


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class HandPlayer:
    """One seat's part in the current hand."""

    seat: int
    cards: tuple[Card, ...] = ()
    folded: bool = False
    committed: int = 0  # chips put in this hand (antes, blinds, bets)
    antes: int = 0  # the dead part of `committed`: antes go to the main pot, never matched
    bet: int = 0  # chips in front of the player this betting round
    acted: bool = False  # acted voluntarily this betting round
    acted_level: int = 0  # the round's bet level when this seat last acted
    drew: bool = False  # finished the current draw
    awaiting: int = 0  # replacement cards owed after discarding
    discards: tuple[Card, ...] = ()  # face-down discards of the current draw
    open_discards: tuple[Card, ...] = ()  # public discards
    shown: bool = False
    mucked: bool = False
    declared_board: bool = False


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class HandState:
    number: int
    button: int
    players: tuple[HandPlayer, ...]  # seat order
    big_blind_seat: int | None = None
    phase: int = -1
    board: tuple[Card, ...] = ()
    dealt_phase: int = -1  # the last dealing phase whose cards arrived
    current_bet: int = 0
    min_raise: int = 0  # size of the last full bet or raise this round (no-limit/pot-limit)
    bets_made: int = 0  # bet + raises this round (fixed-limit cap)
    capped: bool = True  # whether the fixed-limit raise cap applies this round
    to_act: int | None = None
    last_aggressor: int | None = None
    out: frozenset[Card] = frozenset()  # cards not in the stub: dealt, burned, discarded
    burned: tuple[Card, ...] = ()
    discard_pile: tuple[Card, ...] = ()  # discards not yet reshuffled
    ranks: tuple[tuple[int, SeatRank], ...] | None = None
    board_rank: SeatRank | None = None
    showdown_order: tuple[int, ...] = ()
    reached_second_round: bool = False  # for "no flop, no drop"

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


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class TableState:
    config: TableConfig
    seats: tuple[SeatState | None, ...]
    hand: HandState | None = None
    last_hand: int = 0  # number of the most recent hand started
    last_button: int | None = None

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


def new_table(config: TableConfig) -> TableState:
    return TableState(config=config, seats=(None,) * config.seats)
