"""Table state: what `apply` folds events into. Immutable; every change makes a new value.

Each state class is declared once, here (tools/gen_records.py writes
services/games/poker/state.py from it): a native class under mypyc, whose fields compiled code
reads as C struct members and whose changed copy it builds with one direct constructor call.
They were frozen dataclasses copied through their `__dict__` (a native class has none), which
kept them ordinary Python objects: about a quarter of the compiled engine's instructions went
to dictionary lookups reading their fields (docs/engine.md). The generated fields are `Final`:
mypy rejects any assignment outside `__init__`, and the compiled classes expose them
read-only. `__repr__`, `__eq__` and `__hash__` are the dataclass ones (services/games/values.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from services.games.cardtext import Card
from services.games.poker.definitions import Betting, Phase, TableConfig
from services.games.poker.events import DeckCommitted
from services.games.ranking import SeatRank
from services.games.values import Record

_R = TypeVar("_R", bound=Record)


class SeatState(Record):
    player: str
    stack: int
    sitting_out: bool = False
    leaving: bool = False
    waiting_for_big_blind: bool = False
    posts_big_blind: bool = False  # returning player who chose to post rather than wait
    missed_hand: bool = False  # sitting out while a hand was dealt without them
    timeouts: int = 0  # consecutive


class HandPlayer(Record):
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


class HandState(Record):
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


class TableState(Record):
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


class LiveDeal(Record):
    """A live-dealer table's current hand as the dealer reported it (services/games/poker/live):
    the hand's dealer events and seat actions in order (the physical table is rebuilt from
    them), the hand as its blinds left it (a misdeal returns to it) and the hand before its
    last board deal (a flop with too many cards returns to it)."""

    log: tuple[object, ...] = ()
    redeal_point: HandState | None = None
    before_board: HandState | None = None
    redeals: int = 0  # misdeals in the current hand


class PokerTable(Record):
    """A poker table as the table shell drives it (services/games/poker/table.py): the
    engine's state plus the bookkeeping of the process around its hands."""

    engine: TableState
    decks: tuple[DeckCommitted, ...] = ()  # shuffles committed and not revealed, oldest first
    rake: int = 0  # rake of the current (or last) hand, not moved to the house yet
    rake_due: int = 0  # the hand that ended owing `rake` to the house (0: none)
    decisions: int = 0  # decisions made in the current hand (names the next deadline)
    live: LiveDeal | None = None  # a live-dealer table's deal; None: the dealer service deals

    def deck_of(self, hand: int) -> DeckCommitted | None:
        """The committed, unrevealed shuffle that deals `hand`."""
        for deck in self.decks:
            if deck.hand == hand:
                return deck
        return None


def evolve(obj: _R, **changes: Any) -> _R:
    """A copy of a state object with some fields changed (no validation). For the rare
    events: the hot reducer handlers call the constructor with every field instead."""
    fields = {name: getattr(obj, name) for name, _ in type(obj).FIELDS}
    fields.update(changes)
    return type(obj)(**fields)


def new_table(config: TableConfig) -> TableState:
    return TableState(config=config, seats=(None,) * config.seats)
