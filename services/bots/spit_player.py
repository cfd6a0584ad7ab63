"""A Spit player over the public TableService API: the real-time bot of the bot SDK.

    player = SpitPlayer(stub, "t42", name="bot-7", reaction=Reaction(300, 1200))
    player.play(stop)        # until `stop` is set (or, `until_game_over`, the game ends)

It watches the table (`WatchTable`, batched) and keeps a mirror of it (the first view, then
every redacted event folded in by the game's own reducer: services/games/spit/mirror.py), so
it never reads a view per event. Whenever the mirror gives it something to do
(`services.games.spit.bot.choose`), it waits its reaction time (a uniform draw between the
bounds: a person's jitter), chooses again from the newest mirror, and sends the move on its
`Play` stream with what it saw as the precondition (`Expected(deal, top)`). A lost race is
answered FAILED_PRECONDITION with the new top card (or accepted if the card still fits);
either way the bot goes on from the events that follow. One move is in flight at a time, as a
hand plays one card at a time: after an accepted move the bot chooses again once its mirror
holds that move's events, after a refused one once its mirror is newer than the one the move
was chosen on, so it never sends a move the table has already answered twice. When a stream
drops, it reconnects with backoff and resumes its watch from the last version it saw; when
the table is gone (the service answers NOT_FOUND: no such table any more) it stops for good
and reads as no longer seated, so a bot host lets it go.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import grpc

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.bots import spit_wire
from services.games.spit import bot, mirror
from services.games.spit.state import SpitState
from services.games.spit.views import view_for

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 2.0


@dataclass(frozen=True, slots=True)
class Reaction:
    """How long the bot takes to act on what it sees, in milliseconds: a uniform draw in
    [low_ms, high_ms] (0, 0: at once)."""

    low_ms: int = 300
    high_ms: int = 1200

    def draw(self, rng: random.Random) -> float:
        """Seconds to wait before acting."""
        if self.high_ms <= 0:
            return 0.0
        return rng.uniform(self.low_ms, self.high_ms) / 1000


@dataclass
class Tally:
    sent: int = 0
    accepted: int = 0
    refused: int = 0  # lost races, and moves the table had already moved past
    reconnects: int = 0
    refusals: list[str] = field(default_factory=list)  # the last few, in words


class SpitPlayer:
    """One seated player's client. `stub` carries the player's own token."""

    def __init__(
        self,
        stub: table_pb2_grpc.TableServiceStub,
        table_id: str,
        *,
        name: str,
        reaction: Reaction = Reaction(),
        rng: random.Random | None = None,
    ) -> None:
        self._stub = stub
        self._table_id = table_id
        self._name = name
        self._reaction = reaction
        self._rng = rng or random.Random()
        self._changed = threading.Condition()
        self._mirror: SpitState | None = None
        self._seat: int | None = None
        self._version = 0
        self._in_flight = False
        # Choose nothing until the mirror reaches this version (see the module docstring).
        self._wait_for = 0
        self._chosen_at = 0  # the mirror's version when the move in flight was chosen
        self._ended = False  # the Play or WatchTable stream of this game ended
        self._gone = False  # the table does not exist (NOT_FOUND): nothing to reconnect to
        self._outbox: queue.Queue[table_pb2.PlayRequest | None] = queue.Queue()
        self.tally = Tally()

    @property
    def seated(self) -> bool | None:
        """Whether the player sits at the table as its mirror stands (None before the
        first view): a host stops a bot that is no longer seated."""
        with self._changed:
            state, seat, gone = self._mirror, self._seat, self._gone
        if gone:
            return False
        if state is None:
            return None
        holder = state.seats[seat] if seat is not None else None
        return holder is not None and holder.player == self._name

    @property
    def gone(self) -> bool:
        """The table is gone (the service knows no such table): `play` has stopped."""
        return self._gone

    @property
    def version(self) -> int:
        """The table version the mirror stands at."""
        return self._version

    def play(self, stop: threading.Event, *, until_game_over: bool = False) -> SpitState | None:
        """Play until `stop` is set (or, with `until_game_over`, the game in progress when
        the mirror first had one is over); return the mirror as it stands then."""
        backoff = 0.05
        while not stop.is_set():
            self._session(stop, until_game_over)
            if stop.is_set() or self._gone or (until_game_over and self._game_over()):
                break
            self.tally.reconnects += 1
            stop.wait(backoff)
            backoff = min(MAX_BACKOFF_S, backoff * 2)
        return self._mirror

    # ---------------------------------------------------------------- one connection

    def _session(self, stop: threading.Event, until_game_over: bool) -> None:
        with self._changed:
            self._ended = False
            self._in_flight = False
            self._outbox = queue.Queue()
            outbox = self._outbox
        watch = self._stub.WatchTable(
            table_pb2.WatchTableRequest(
                table_id=self._table_id,
                # Resume after what the mirror holds (a fresh watch starts with a view).
                from_version=self._version if self._mirror is not None else 0,
                batch=True,
            )
        )
        answers = self._stub.Play(iter(outbox.get, None))
        threads = [
            threading.Thread(target=self._watch, args=(watch,), daemon=True),
            threading.Thread(target=self._answers, args=(answers,), daemon=True),
        ]
        for thread in threads:
            thread.start()
        try:
            while not stop.is_set():
                if until_game_over and self._game_over():
                    return
                with self._changed:
                    if self._ended:
                        return
                    if self._in_flight or self._choice() is None:
                        self._changed.wait(0.2)
                        continue
                pause = self._reaction.draw(self._rng)
                if pause and stop.wait(pause):
                    return
                with self._changed:
                    if not self._in_flight:
                        self._send_choice(outbox)
        finally:
            outbox.put(None)
            watch.cancel()
            answers.cancel()
            for thread in threads:
                thread.join(5)

    def _choice(self) -> bot.BotMove | None:
        if self._mirror is None or self._seat is None or self._version < self._wait_for:
            return None
        return bot.choose(view_for(self._mirror, self._seat))

    def _game_over(self) -> bool:
        state = self._mirror
        return state is not None and state.game is not None and state.game.over

    def _send_choice(self, outbox: queue.Queue[table_pb2.PlayRequest | None]) -> None:
        """Send what the newest mirror says to do (under the lock)."""
        choice = self._choice()
        if choice is None:
            return
        self.tally.sent += 1
        act = table_pb2.ActRequest(
            table_id=self._table_id,
            idempotency_key=f"{self._name}/{self._table_id}/{self._version}/{self.tally.sent}",
            spit=spit_wire.move_to_proto(choice.move, choice.precondition),
        )
        self._in_flight = True
        self._chosen_at = self._version
        outbox.put(table_pb2.PlayRequest(act=act))

    # ---------------------------------------------------------------- the streams

    def _watch(self, stream: Iterator[table_pb2.WatchTableResponse]) -> None:
        try:
            for message in stream:
                with self._changed:
                    if message.HasField("view"):
                        self._start(message.view)
                    else:
                        self._fold(message.events.events)
                    self._changed.notify_all()
        except grpc.RpcError as exc:
            self._note_gone(exc)
            if exc.code() != grpc.StatusCode.CANCELLED:
                log.info("%s: the watch of %s ended: %s", self._name, self._table_id, exc)
        except Exception:  # a mirror that cannot follow: start again from a fresh view
            log.exception("%s: lost the picture of %s", self._name, self._table_id)
            with self._changed:
                self._mirror = None
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def _note_gone(self, exc: grpc.RpcError) -> None:
        """NOT_FOUND: the table does not exist (any more); no reconnecting brings it back."""
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            with self._changed:
                self._gone = True
                self._changed.notify_all()

    def _start(self, view: table_pb2.TableView) -> None:
        self._seat = view.viewer_seat if view.viewer_seat >= 0 else None
        spit = view.spit
        self._mirror = mirror.from_view(
            spit_wire.view_from_proto(spit, self._seat), spit_wire.config_of(spit)
        )
        self._version = view.version

    def _fold(self, events: Iterable[events_pb2.TableEvent]) -> None:
        state = self._mirror
        for event in events:
            self._version = max(self._version, event.version)
            if state is not None and event.WhichOneof("event") == "spit":
                record = spit_wire.event_from_proto(event.spit)
                if record is not None:
                    state = mirror.apply(state, record)
        self._mirror = state

    def _answers(self, stream: Iterator[table_pb2.PlayResponse]) -> None:
        try:
            for answer in stream:
                with self._changed:
                    self._in_flight = False
                    if answer.HasField("error"):
                        self.tally.refused += 1
                        self.tally.refusals = [*self.tally.refusals[-9:], answer.error.message]
                        self._wait_for = self._chosen_at + 1
                    else:
                        self.tally.accepted += 1
                        self._wait_for = answer.act.version
                    self._changed.notify_all()
        except grpc.RpcError as exc:
            self._note_gone(exc)
            if exc.code() != grpc.StatusCode.CANCELLED:
                log.info("%s: the Play stream of %s ended: %s", self._name, self._table_id, exc)
        with self._changed:
            self._ended = True
            self._changed.notify_all()
