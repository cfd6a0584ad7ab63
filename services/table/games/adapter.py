"""The one interface between the table shell and a game's table API: `GameTable`.

A game at the table is two things: its rules (`services.games.contract.GameRules`, pure) and
its translation to and from the table API (this Protocol: croupier.table.v1's envelope and the
game's own proto package, croupier.<game>.v1, behind the envelope's `oneof`s). The shell
(services/table) reaches a game through these two only; the catalog (catalog.py) maps a
game's name, and the member of `TableOptions.game_options` a CreateTable sets, to its
`GameTable`. Adding a game is: its rules package, its proto package (with its member in the
envelope's oneofs), one translation module implementing `GameTable`, and one catalog entry.

A translation module does no I/O and keeps no rules: it turns request messages into the
rules' values (the rules check every value they are given), the rules' values into response
messages, and the rules' events into their stored messages and back (`EventCodec`). Errors in
a request are `errors.InvalidArgument` with a message a person can act on.

Vocabulary: a game's `Config` (what `initial_state` takes), `State`, `Event`, `View` and
`Moves` are its own records, typed `Any` here (the shell never looks inside them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.games.contract import GameRules


@dataclass(frozen=True, slots=True)
class Rounds:
    """Where a table is in its game's rounds (a poker hand, a game of Spit, a video-poker
    deal): the round being played (None between rounds) and the last one started (0 before
    the first). The envelope shows them as TableView.hand_number / hand_in_progress."""

    current: int | None
    last: int


@dataclass(frozen=True, slots=True)
class Seating:
    """What one event does to the seating (for a watcher's own seat and a history's player
    names): `player` took `seat`, or (player "") the seat was freed."""

    seat: int
    player: str = ""


def seat_change(event: object, seated: type, left: type) -> Seating | None:
    """The seating `event` makes when a game records a seat taken as `seated(seat, player)`
    and a seat freed as `left(seat, ...)` (every game here does), else None."""
    if isinstance(event, seated):
        return Seating(event.seat, event.player)  # type: ignore[attr-defined]
    if isinstance(event, left):
        return Seating(event.seat)  # type: ignore[attr-defined]
    return None


class EventCodec(Protocol):
    """A game's events <-> their stored protobuf messages (croupier.<game>.v1), one message
    per event type, named after it. `structural.StructuralCodec` implements it for records
    whose fields map one to one onto their message's (the usual case)."""

    def message_types(self) -> Sequence[type[Message]]:
        """Every message a stream of this game may hold (registered with the event store)."""
        ...

    def former_names(self) -> Sequence[tuple[str, type[Message]]]:
        """Names these messages were stored under before (read as aliases), if any."""
        ...

    def to_message(self, event: object) -> Message:
        """The stored form of one of the game's events (ValueError for a value protobuf
        cannot carry: CreateTable refuses such options before any effect)."""
        ...

    def from_message(self, message: Message) -> object | None:
        """The game's event a stored message stands for; None when it is not this game's."""
        ...

    def table_event(self, message: Message, event: events_pb2.TableEvent) -> None:
        """Put the (redacted) event `message` into the watch stream's TableEvent: poker's sit
        at fields 10-39, any other game's inside its own event wrapper at field 100 on."""
        ...


class GameTable(Protocol):
    """One game's table adapter: its rules and its translation to the table API."""

    @property
    def name(self) -> str:
        """The catalog name, recorded in TableCreated.game ("poker", "high-card", ...)."""
        ...

    @property
    def proto_field(self) -> str:
        """The member of TableOptions.game_options naming this game (and of ActRequest.move,
        TableView.game_view and TableEvent.event, spelled the same: "poker", "highcard")."""
        ...

    @property
    def rules(self) -> GameRules[Any, Any, Any, Any, Any]: ...

    @property
    def realtime(self) -> bool:
        """Whether the game has no turns (Spit): its bots are hosted players that watch the
        table and play when they see a play, so the table schedules no bot turns for them,
        and its deadlines are swept from an index, not sent as a task each (they move with
        every card played)."""
        ...

    @property
    def default_seed_reveal(self) -> int:
        """Who gets a round's seed when CreateTable leaves seed_reveal unspecified
        (events_pb2.SeedReveal): auditors only for a game that deals cards some watchers may
        not see (an unshown hand stays private), everyone for one that shows every card."""
        ...

    @property
    def bot_policies(self) -> Sequence[str]:
        """The built-in bot policies CreateTable may seat at this game's tables."""
        ...

    @property
    def events(self) -> EventCodec: ...

    # --- options -----------------------------------------------------------------------

    def config_from_options(self, options: table_pb2.TableOptions) -> Any:
        """The rules' configuration for CreateTable's options: the envelope's seats and
        buy-in range, and the game's own member of `game_options` (INVALID_ARGUMENT naming
        the problem; chip amounts above services.shared.limits.MAX_CHIPS included)."""
        ...

    def opening_events(self, config: Any) -> Sequence[object]:
        """Events recording `config` at the head of a new table's stream, after TableCreated
        (poker: its TableOpened); none when `initial_state` from the recorded options is the
        whole story."""
        ...

    def initial_state(self, options: table_pb2.TableOptions) -> Any:
        """The state a stream starts from, given TableCreated.options (as `fill_options`
        wrote them; empty in poker streams from before options were recorded there)."""
        ...

    def fill_options(self, state: Any, options: table_pb2.TableOptions) -> None:
        """Write the table's own options into `options`: the game's member of game_options
        and the envelope's seats / min_buy_in / max_buy_in, which the configuration holds."""
        ...

    def seat_count(self, state: Any) -> int:
        """How many seats the table has (free ones included)."""
        ...

    # --- commands ----------------------------------------------------------------------

    def move_from_request(self, request: table_pb2.ActRequest) -> tuple[object, object | None]:
        """(move, precondition) of an Act: the contract's `Move.move` and
        `Move.precondition` in the rules' own records (INVALID_ARGUMENT when the request's
        `move` member is not this game's or is malformed)."""
        ...

    def sit_in_option(self, request: table_pb2.SitInRequest) -> object | None:
        """The contract's `SitIn.option` for a SitIn request (None: the game's default)."""
        ...

    # --- what viewers see ----------------------------------------------------------------

    def rounds(self, state: Any) -> Rounds: ...

    def fill_view(
        self, view: Any, message: table_pb2.TableView, seats: Mapping[int, table_pb2.SeatView]
    ) -> None:
        """Write the rules' view (`rules.view_for`) into the game's member of
        `message.game_view` (and any first spelling it keeps); `seats` maps a seat to the
        envelope's SeatView already in `message`."""
        ...

    def next_card(self, state: Any) -> table_pb2.CardDue | None:
        """A live-dealer table's next card, as its rules expect it (None: none is due, or the
        game has no live dealer)."""
        ...

    def fill_decision(self, state: Any, seat: int, request: events_pb2.ActionRequested) -> None:
        """The public part of what `seat` may do now, recorded with its decision (poker:
        legal actions and amounts, so a bot can play from its watch stream); most games
        write nothing."""
        ...

    def seating(self, event: object) -> Seating | None:
        """What `event` (one of the game's) does to the seating, if anything."""
        ...

    # --- histories ---------------------------------------------------------------------

    def round_of(self, event: object) -> tuple[int, bool] | None:
        """(round, starts) when `event` starts (True) or ends (False) a round, else None:
        GetHandHistory exports the events from a round's start to its end."""
        ...

    def history(
        self,
        state: Any,
        players: Mapping[int, str],
        events: Sequence[object],
        viewer: int | None,
        full: bool,
        table_id: str,
    ) -> tuple[str, str]:
        """(machine-readable, readable text) history of one finished round: `events` from
        its start to its end as stored, `players` the seats' players when it started, and
        what `viewer` may see of it (everything when `full`: service and admin callers).
        Poker's first part is PHH (pokerkit's format); a game without such a format
        returns "" for it."""
        ...
