"""What `apply` folds Spit's events into: immutable records, every change a new value.

The whole truth, hidden cards included (face-down stock cards, spit cards, draw piles, side
stacks, Speed hands): `view_for` is the one place that decides who sees what. One shape serves
the three games: a player's `places` are their stock piles (Spit), row (Bicycle's Spit) or
hand (Speed), and `spit` is what feeds them or the middle: spit cards, the stock, the draw pile.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from services.games.spit.cards import Card
from services.games.spit.config import SpitConfig

_T = TypeVar("_T")
_new = object.__new__
_set = object.__setattr__


def evolve(record: _T, **changes: Any) -> _T:
    """`dataclasses.replace` for these frozen, slotted, validation-free records, at about a
    third of its cost: the reducer builds several changed copies per event, and `replace`
    (a dict of every field, then `__init__`) was the largest cost of a simulated game."""
    cls = type(record)
    copy = _new(cls)
    for name in cls.__slots__:  # type: ignore[attr-defined]
        _set(copy, name, getattr(record, name))
    for name, value in changes.items():
        _set(copy, name, value)
    return copy


class Phase(StrEnum):
    DEALING = "dealing"  # the dealer's shuffles and cards for this deal
    READY = "ready"  # layouts out; waiting for both players to say ready
    PLAYING = "playing"  # no turns: both play at once
    SLAPPING = "slapping"  # a two-pile deal is over: each player claims a middle pile
    OVER = "over"  # the game is over; its shuffles are being revealed


@dataclass(frozen=True, slots=True)
class Place:
    """A stock pile, a row space or a hand card: face-down cards under at most one face-up
    top card. Empty when both are."""

    down: tuple[Card, ...] = ()  # bottom first
    up: Card | None = None

    @property
    def size(self) -> int:
        return len(self.down) + (self.up is not None)

    @property
    def empty(self) -> bool:
        return self.up is None and not self.down


@dataclass(frozen=True, slots=True)
class Side:
    """One player's part of the deal."""

    places: tuple[Place, ...] = ()
    spit: tuple[Card, ...] = ()  # face down; [0] comes next
    dealt: bool = False
    ready: bool = False
    slapped: int | None = None  # the middle pile this player slapped
    takes: int | None = None  # the middle pile this player takes when the deal ends

    @property
    def cards(self) -> int:
        return sum(p.size for p in self.places) + len(self.spit)

    @property
    def layout_cleared(self) -> bool:
        return all(p.empty for p in self.places)


@dataclass(frozen=True, slots=True)
class Middle:
    cards: tuple[Card, ...] = ()  # face up, bottom first
    starter: int | None = None  # the seat that spits onto it (None: a Speed side stack feeds it)

    @property
    def top(self) -> Card | None:
        return self.cards[-1] if self.cards else None


@dataclass(frozen=True, slots=True)
class Shuffle:
    """One dealer shuffle of the game, to be revealed when the game is over."""

    round: int
    name: str
    shuffle_id: str
    commitment: str
    reveal: str | None = None


@dataclass(frozen=True, slots=True)
class Deal:
    number: int  # deals are numbered across the table; a shuffle's round is its deal
    phase: Phase
    sides: tuple[Side, Side] = (Side(), Side())
    middle: tuple[Middle, ...] = ()
    stacks: tuple[tuple[Card, ...], ...] = ()  # Speed's side stacks, face down; [0] comes next
    # A redeal: the cards each player's own shuffle is over (what they collected last deal).
    decks: tuple[tuple[Card, ...], ...] = ()
    shuffles: tuple[str, ...] = ()  # names of this deal's shuffles opened so far
    dealt: tuple[str, ...] = ()  # recipients ("seat 0", "stack 1") dealt so far
    moves: int = 0  # cards moved this deal: plays, moves into spaces, spits (restarts the stall)
    restocks: int = 0  # Speed: side stacks rebuilt from the middle so far
    gathered: tuple[tuple[Card, ...], ...] = ()  # Speed: middle cards awaiting their shuffle
    one_pile: bool = False


@dataclass(frozen=True, slots=True)
class Game:
    number: int
    stake: int
    deal: Deal
    shuffles: tuple[Shuffle, ...] = ()
    winner: int | None = None
    result: str = ""  # why it ended: cleared, stuck, conceded, void: <reason>

    @property
    def over(self) -> bool:
        return self.deal.phase is Phase.OVER


@dataclass(frozen=True, slots=True)
class Seat:
    player: str
    stack: int
    sitting_out: bool = False


@dataclass(frozen=True, slots=True)
class SpitState:
    config: SpitConfig
    seats: tuple[Seat | None, Seat | None] = (None, None)
    game: Game | None = None  # the current game, or the last one once it is over
    games: int = 0  # games started at this table
    deals: int = 0  # deals started at this table

    @property
    def playing(self) -> bool:
        """A game is in progress (not over)."""
        return self.game is not None and not self.game.over


def other(seat: int) -> int:
    return 1 - seat
