"""The one contract between a game package and the table shell.

Every game (poker, Spit, video poker, ...) is a package under `services/games/` that exports
one object implementing `GameRules`. The table shell (`services/table`) depends on this module
and on nothing game-specific: it stores the game's events, asks `pending_chance` what the
outside world must supply next (shuffles and cards from the dealer, hand ranks from the
evaluator, chip transfers through the ledger), records and schedules `deadlines`, and gives
each viewer `view_for` and `redact`. A game never performs I/O; the shell never interprets a
game's state.

Pure like every rules module: standard library only, no I/O, clock or randomness. Time enters
as numbers carried by commands (`now_ms`), never read.

Participants are seat indexes (0-based). The shell maps a seat to its player, ledger account
and time bank; the game knows only seats, the player id each sat down as, and their stacks.
A viewer is a seat, or None for a spectator, who sees public information only.

`legal_moves` answers for ONE participant; `to_act` names EVERY participant who may act now
(a set, as in OpenSpiel's simultaneous-move nodes): one seat in a turn-based game, both players
at once in Spit, none while the game waits for chance or for players to join.

Chance is a dialogue, one request at a time: `pending_chance` names the next thing the game
needs, the shell fetches it and feeds the answer to `decide` as a command. `decide` checks the
answer is the one asked for (a repeat of one already folded in returns no events) and returns
the game's own events recording it, so `pending_chance` moves on once they are applied and a
replay needs no other service. The order of the requests is the game's protocol; the shell
keeps none of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol, TypeVar

from services.games.ranking import RankRequest, SeatRank

Participant = int
Viewer = int | None


# --- what the shell fetches for a game ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """The multiset of cards a shuffle orders: `copies` standard decks, or exactly `cards`
    (two-character cards, duplicates allowed) when `cards` is not empty."""

    copies: int = 1
    cards: tuple[str, ...] = ()


class Party(StrEnum):
    """The two accounts a game may move chips between besides a seat's own stack."""

    ESCROW = "escrow"  # the table's escrow: every chip of every stack at the table
    HOUSE = "house"  # the platform's own account (rake, a banked game's wins and losses)


@dataclass(frozen=True, slots=True)
class OpenShuffle:
    """Open (create and commit) the shuffle `name` of round `round` over `deck`. The shell
    derives the dealer shuffle id from (table, round, name), so a repeat finds it again, and
    answers with `ShuffleOpened`."""

    round: int
    name: str
    deck: DeckSpec


# What the dealer records dealt cards as: one of its DealPurpose values, so a game can name
# only a purpose the dealer knows (checked by the type checker, not at the first deal).
DealPurpose = Literal["hole", "burn", "board", "draw", "spit", "up", "down"]


@dataclass(frozen=True, slots=True)
class DrawCards:
    """The next `count` cards of shuffle `name` after burning `burn`; `purpose` and
    `recipient` label them in the dealer's record ("hole" / "seat 3", "board", "draw" /
    "line 2"). Answered with `CardsDrawn`."""

    round: int
    name: str
    count: int
    purpose: DealPurpose
    recipient: str = ""
    burn: int = 0


@dataclass(frozen=True, slots=True)
class ReturnCards:
    """Shuffle `cards` (dealt earlier from shuffle `name`) back under its undealt cards, for
    a draw of `needed` cards that the undealt ones cannot cover (the dealer refuses a
    reshuffle no draw needs). Answered with `CardsReturned`."""

    round: int
    name: str
    cards: tuple[str, ...]
    needed: int = 0


@dataclass(frozen=True, slots=True)
class CloseShuffle:
    """Close shuffle `name` of `round` and publish its reveal. Answered with `ShuffleClosed`."""

    round: int
    name: str


@dataclass(frozen=True, slots=True)
class Transfer:
    """Move `amount` chips through the ledger between the table's escrow and the house.
    `key` is unique within the table and deterministic ("12/rake", "7/win"): the shell
    prefixes the table's namespace, so a repeat moves the chips once. Answered with
    `TransferDone`."""

    key: str
    source: Party
    destination: Party
    amount: int


@dataclass(frozen=True, slots=True)
class Evaluate:
    """Rank these hands (services.games.ranking: the cards, wild ranks and whether to rank an
    eight-or-better low too). The shell ranks each with its `HandRanker` (the evaluator
    library: `ranking.rank_with(ranker, request)`) and answers with `Evaluated`, the ranks in
    the same order."""

    requests: tuple[RankRequest, ...]


@dataclass(frozen=True, slots=True)
class StartRound:
    """The game is ready for its next round (a hand, a deal, a game round): the shell answers
    with `RoundStarts`, which it may delay (a table that waits for its minimum players)."""

    round: int


ChanceRequest = (
    OpenShuffle | DrawCards | ReturnCards | CloseShuffle | Transfer | Evaluate | StartRound
)


# --- the shell's answers, fed to `decide` as commands ---------------------------------------


@dataclass(frozen=True, slots=True)
class ShuffleOpened:
    round: int
    name: str
    shuffle_id: str
    commitment: str  # hex, published before the first card


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    round: int
    name: str
    cards: tuple[str, ...]  # burned cards first, then the drawn ones
    burned: int = 0


@dataclass(frozen=True, slots=True)
class CardsReturned:
    round: int
    name: str
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ShuffleClosed:
    round: int
    name: str
    reveal: str  # the dealer's reveal record (JSON), for `croupier verify`


@dataclass(frozen=True, slots=True)
class TransferDone:
    key: str


@dataclass(frozen=True, slots=True)
class Evaluated:
    ranks: tuple[SeatRank, ...]  # one per request of the `Evaluate`, in its order


@dataclass(frozen=True, slots=True)
class RoundStarts:
    round: int


ChanceAnswer = (
    ShuffleOpened | CardsDrawn | CardsReturned | ShuffleClosed | TransferDone | Evaluated
) | RoundStarts


# --- commands every game understands (the envelope's seat commands) -------------------------


@dataclass(frozen=True, slots=True)
class SitDown:
    """Take `seat` with `stack` chips already reserved for the table."""

    seat: Participant
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave now, or after the current round when the seat is in it."""

    seat: Participant
    by: str | None = None


@dataclass(frozen=True, slots=True)
class SitOut:
    seat: Participant
    by: str | None = None


@dataclass(frozen=True, slots=True)
class SitIn:
    """Come back in. `option` is the game's own choice for how (poker: `PostBigBlind()` to
    post a big blind at once instead of waiting for it); None is the game's default."""

    seat: Participant
    by: str | None = None
    option: object = None


@dataclass(frozen=True, slots=True)
class AddChips:
    seat: Participant
    amount: int
    by: str | None = None


@dataclass(frozen=True, slots=True)
class TimeOut:
    """`deadline` (an id from `deadlines`) passed for `seat`: apply the game's default.
    `since` is the deadline's `since` as the shell recorded it when it started the time that
    ran out: a game whose deadline restarts (`Deadline.since`) ignores a stale one."""

    seat: Participant
    deadline: str
    since: int = 0


@dataclass(frozen=True, slots=True)
class Void:
    """Abandon the current round, returning every stake (a dependency stayed down)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Move:
    """A participant's own move; `move` is the game's move record, `precondition` the game's
    optional guard (Spit: the expected top card of a pile), checked by `decide` against the
    state the command meets, so a lost race is re-decided rather than refused outright."""

    seat: Participant
    move: object
    by: str | None = None
    precondition: object = None
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class DealtCard:
    """A card that left a physical deck: to seat `seat` (`to` "seat"), to the "board" or to the
    "burn" pile, face up or face down as the table saw it. `card` is two characters ("Ah");
    `round` pins the report to the round being dealt (0: whichever is being dealt)."""

    card: str
    to: str
    seat: int | None = None
    face_up: bool = False
    round: int = 0


@dataclass(frozen=True, slots=True)
class Irregularity:
    """An irregularity the cards alone do not show, in the dealer's words: `kind` "misdeal",
    or "card_exposed" (the face-down hole card `card` was exposed by the dealer)."""

    kind: str
    reason: str
    round: int = 0
    card: str = ""


@dataclass(frozen=True, slots=True)
class Report:
    """What a dealer at a physical (live-dealer) table reports happened; `by` the dealer
    credential's subject. A game whose cards come from the dealer service refuses it
    (NotAllowedNow)."""

    report: DealtCard | Irregularity
    by: str | None = None


SeatCommand = SitDown | Leave | SitOut | SitIn | AddChips
Command = SeatCommand | TimeOut | Void | Move | Report | ChanceAnswer


# --- what the shell reads ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deadline:
    """A decision `seat` owes by a time the shell sets: `id` names the decision (stable until
    it is made, never reused: "17/4" for hand 17's fourth decision, "deal-3/slap"), `after_ms`
    is how long the seat has from the moment the game asked (None: the table's action time,
    an envelope option), and `time_bank` whether the seat's time bank may extend it. When it
    passes, the shell sends `TimeOut(seat, id, since)`.

    `since` restarts the decision's time without renaming it: the game's count of what
    restarts it (Spit's stall: the cards moved in the deal). While it stays the same the
    shell keeps the decision's deadline; when the game owes the same decision at another
    `since`, the shell moves the deadline in place to `after_ms` from then (the same
    decision, no new one per restart)."""

    seat: Participant
    id: str
    after_ms: int | None = None
    time_bank: bool = False
    since: int = 0


@dataclass(frozen=True, slots=True)
class CashOut:
    """A player leaves the table with `amount` chips: the shell pays them out of the table's
    escrow to `player`'s account (`cash_out` reads it off the event that freed the seat)."""

    seat: Participant
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """What the envelope shows of every seat, whatever the game."""

    seat: Participant
    player: str
    stack: int
    sitting_out: bool = False
    in_round: bool = False


# Type variables for a game's own records.
Config = TypeVar("Config", contravariant=True)
State = TypeVar("State")
Event = TypeVar("Event")
View = TypeVar("View", covariant=True)
Moves = TypeVar("Moves", covariant=True)


class GameRules(Protocol[Config, State, Event, View, Moves]):
    """One game family. Every method is pure and total over the states `apply` produces."""

    name: str  # "poker", "spit", "video-poker", ...

    def initial_state(self, config: Config) -> State:
        """A new table of this game (no seat taken, no round played)."""
        ...

    def decide(self, state: State, command: Command) -> Sequence[Event]:
        """The events `command` causes, its own then every automatic consequence. Raises a
        `RuleViolation` (services.games.errors) and changes nothing when it is not allowed;
        an empty result means the command is already satisfied (a stale timeout)."""
        ...

    def apply(self, state: State, event: Event) -> State:
        """Fold one event in. Never validates and never computes hidden inputs."""
        ...

    def to_act(self, state: State) -> frozenset[Participant]:
        """Every participant who may make a `Move` now."""
        ...

    def legal_moves(self, state: State, participant: Participant) -> Moves:
        """What `participant` may do now (the game's own record; empty when nothing)."""
        ...

    def view_for(self, state: State, viewer: Viewer) -> View:
        """The state as `viewer` may see it: the single place that hides information."""
        ...

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        """`event` as `viewer` may see it (None: this viewer is not sent it)."""
        ...

    def pending_chance(self, state: State) -> ChanceRequest | None:
        """What the shell must fetch next, or None when the game waits for participants."""
        ...

    def deadlines(self, state: State) -> Sequence[Deadline]:
        """The decisions owed now, zero or more per participant."""
        ...

    def seats(self, state: State) -> Sequence[SeatSummary]:
        """Every occupied seat, for the envelope (stacks are the game's to keep)."""
        ...

    def cash_out(self, event: Event) -> CashOut | None:
        """The chips `event` sends away with a player who left (their seat freed, now or at
        the end of a round), None for every other event. The shell records a cash-out for it
        when it appends the event and pays it through the ledger, keyed by the event's
        position, so a restart pays it once."""
        ...

    def encode_state(self, state: State) -> bytes:
        """`state` as bytes, for a snapshot the shell stores beside the stream: a versioned
        format naming the game (services.games.state_codec), never a pickle."""
        ...

    def decode_state(self, data: bytes) -> State:
        """The state `encode_state` wrote, equal to the one it was given. Raises
        `state_codec.StateDecodeError` for anything else (another game, another version of
        the state's shape, corrupt bytes): the shell then replays the stream instead."""
        ...
