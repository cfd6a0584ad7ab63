"""Spit's events: what happened, in the order the table's event store accepted it.

They carry everything a replay needs with no other service: every dealt card (`LaidOut`,
`SideStackDealt`), every card turned up, every slap and what each player took, the stakes.
`TYPE` is each event's stable stored name (`EVENT_TYPES` maps it back); field names are part
of the stored format: add fields with defaults, never rename. `redact` (views.py) is the one
place that hides the face-down cards these records carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from services.games.spit.cards import Card

# --- seats -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    TYPE: ClassVar[str] = "spit.PlayerSeated"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """The seat is free; `stack` chips go back to the player."""

    TYPE: ClassVar[str] = "spit.PlayerLeft"
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    """No new game starts while this seat sits out (a game in progress goes on)."""

    TYPE: ClassVar[str] = "spit.PlayerSatOut"
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    TYPE: ClassVar[str] = "spit.PlayerSatIn"
    seat: int


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    TYPE: ClassVar[str] = "spit.ChipsAdded"
    seat: int
    amount: int


# --- a game and its deals ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Game `game` begins with deal `deal`; each player put up `stake` (`stacks` after it)."""

    TYPE: ClassVar[str] = "spit.GameStarted"
    game: int
    deal: int
    stake: int
    stacks: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ShuffleCommitted:
    """The dealer committed to shuffle `name` of deal `round` before any of its cards."""

    TYPE: ClassVar[str] = "spit.ShuffleCommitted"
    round: int
    name: str
    shuffle_id: str
    commitment: str


@dataclass(frozen=True, slots=True)
class LaidOut:
    """`seat`'s cards for the deal: `places` bottom card first (the last of each is face up;
    the rest face down), then `spit` face down, the first to come first. `private`: the face-up
    cards are the owner's to see only (a Speed hand)."""

    TYPE: ClassVar[str] = "spit.LaidOut"
    deal: int
    seat: int
    places: tuple[tuple[Card, ...], ...]
    spit: tuple[Card, ...]
    private: bool = False


@dataclass(frozen=True, slots=True)
class SideStackDealt:
    """Speed: side stack `stack`, face down, the first to be turned first."""

    TYPE: ClassVar[str] = "spit.SideStackDealt"
    deal: int
    stack: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayerReady:
    TYPE: ClassVar[str] = "spit.PlayerReady"
    seat: int
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class Spat:
    """`card` turned face up onto middle pile `pile`, from `seat`'s spit cards (Bicycle's
    Spit: stock), or from side stack `pile` when `seat` is None (Speed)."""

    TYPE: ClassVar[str] = "spit.Spat"
    seat: int | None
    pile: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """`seat` played `card` from its place `source` onto middle pile `target`. `raced`: the
    player had seen another top card there (a lost race) and the card still fitted."""

    TYPE: ClassVar[str] = "spit.CardPlayed"
    seat: int
    source: int
    target: int
    card: Card
    raced: bool = False


@dataclass(frozen=True, slots=True)
class CardMoved:
    """Spit: `seat` moved `card` from pile `source` into the empty space `target`."""

    TYPE: ClassVar[str] = "spit.CardMoved"
    seat: int
    source: int
    target: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardTurnedUp:
    """Spit: the face-down card that became the top of `seat`'s pile `pile` turned up."""

    TYPE: ClassVar[str] = "spit.CardTurnedUp"
    seat: int
    pile: int
    card: Card


@dataclass(frozen=True, slots=True)
class SlotFilled:
    """Bicycle's Spit / Speed: the emptied row space or hand card `slot` of `seat` was filled
    from the top of the player's own stock or draw pile; `private`: a Speed hand card, the
    owner's to see only."""

    TYPE: ClassVar[str] = "spit.SlotFilled"
    seat: int
    slot: int
    card: Card
    private: bool = False


@dataclass(frozen=True, slots=True)
class Stalled:
    """No card moved for the stall time while `seat` could play: the game goes on as if
    nobody could (it spits, or the deal is stuck)."""

    TYPE: ClassVar[str] = "spit.Stalled"
    seat: int


@dataclass(frozen=True, slots=True)
class MiddleGathered:
    """Speed: both side stacks are empty and nobody can play; each middle pile except its top
    card (`cards[i]`, bottom first, all seen face up) goes to be shuffled into side stack i."""

    TYPE: ClassVar[str] = "spit.MiddleGathered"
    deal: int
    restock: int
    cards: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class DealOver:
    """A two-pile Spit deal is over: `cleared` cleared their layout (reason "cleared"), or
    nobody can play and nobody has spit cards ("stuck"). Both players now slap a pile."""

    TYPE: ClassVar[str] = "spit.DealOver"
    deal: int
    reason: str
    cleared: int | None = None


@dataclass(frozen=True, slots=True)
class Slapped:
    """`seat` slapped middle pile `pile` and takes pile `takes`; `pile` is None when the slap
    time ran out first (`timed_out`)."""

    TYPE: ClassVar[str] = "spit.Slapped"
    seat: int
    pile: int | None
    takes: int
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class DealEnded:
    """Each player gathers the middle pile `takes[seat]` (None: none) with their own
    leftover cards; `cards[seat]` is what each then holds for the next deal."""

    TYPE: ClassVar[str] = "spit.DealEnded"
    deal: int
    reason: str  # cleared, stuck, slapped
    takes: tuple[int | None, int | None]
    cards: tuple[int, int]


@dataclass(frozen=True, slots=True)
class GameEnded:
    """`winner` (None: nobody, a drawn or void game) and why; `payouts[seat]` chips went to
    each stack (`stacks` after them)."""

    TYPE: ClassVar[str] = "spit.GameEnded"
    game: int
    winner: int | None
    reason: str
    payouts: tuple[int, int]
    stacks: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ShuffleRevealed:
    """The dealer's reveal of a finished game's shuffle, for `croupier verify`."""

    TYPE: ClassVar[str] = "spit.ShuffleRevealed"
    round: int
    name: str
    reveal: str


SpitEvent = (
    PlayerSeated
    | PlayerLeft
    | PlayerSatOut
    | PlayerSatIn
    | ChipsAdded
    | GameStarted
    | ShuffleCommitted
    | LaidOut
    | SideStackDealt
    | PlayerReady
    | Spat
    | CardPlayed
    | CardMoved
    | CardTurnedUp
    | SlotFilled
    | Stalled
    | MiddleGathered
    | DealOver
    | Slapped
    | DealEnded
    | GameEnded
    | ShuffleRevealed
)

EVENT_TYPES: dict[str, type[SpitEvent]] = {
    cls.TYPE: cls
    for cls in (
        PlayerSeated,
        PlayerLeft,
        PlayerSatOut,
        PlayerSatIn,
        ChipsAdded,
        GameStarted,
        ShuffleCommitted,
        LaidOut,
        SideStackDealt,
        PlayerReady,
        Spat,
        CardPlayed,
        CardMoved,
        CardTurnedUp,
        SlotFilled,
        Stalled,
        MiddleGathered,
        DealOver,
        Slapped,
        DealEnded,
        GameEnded,
        ShuffleRevealed,
    )
}
