"""What a viewer may see: table views and the WatchTable stream, redacted per viewer.

The engine's `view_for` and `redact` are the only places that decide visibility; this module
works out who the viewer is (the seat whose player is the caller, else a spectator) and turns
the table's events, as the process's fan-out hub has them (fanout.py), into each watcher's
messages. The table service's own events are redacted here the same way: a shuffle's reveal
carries only the seed and commitment to viewers (anyone can re-derive and check the deck with
`croupier verify`), and command bookkeeping is not streamed at all.

A batched watch (`WatchTableRequest.batch`) sends every event the hub has ready for the watcher
in one message: the sync gRPC server pays a thread hand-off per message sent, not per event.
Its messages are bytes joined from each view's serialized TableEvent (watch_wire.py), the
same bytes as the messages' own serialization.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator, Sequence

import structlog
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.shared.auth import Principal
from services.shared.eventstore import EventStore, RecordedEvent
from services.table import translate, watch_wire
from services.table.application import TableApplication
from services.table.event_codec import TableCodec
from services.table.fanout import HubEvent, RunBlocking, TableFanout
from services.table.folding import fold_recorded, table_stream
from services.table.games.adapter import GameTable
from services.table.reveals import public_reveal, seed_is_public
from services.table.shell import Table
from services.table.watch_wire import WatchMessage

log = structlog.get_logger(__name__)


def viewer_seat(table: Table, principal: Principal) -> int | None:
    return table.shell.seat_of(principal.subject)


def redact_any(
    event: object,
    viewer: int | None,
    game: GameTable,
    seed_reveal: int = events_pb2.SEED_REVEAL_AUDITORS,
) -> object | None:
    """The event as `viewer` may see it; None when it is not streamed at all. The service's
    own events (protobuf messages) look the same to every viewer: a shuffle's reveal without
    its seed unless the table's `seed_reveal` makes it public (reveals.py)."""
    if isinstance(event, events_pb2.CommandAccepted | events_pb2.ShuffleDealt):
        return None  # (the table's own bookkeeping: the game's events show the cards)
    if isinstance(event, events_pb2.ShuffleRevealed):
        return events_pb2.ShuffleRevealed(
            hand=event.hand,
            shuffle_id=event.shuffle_id,
            reveal_json=public_reveal(
                event.reveal_json, event.shuffle_id, seed_is_public(seed_reveal, event.unused)
            ),
            name=event.name,
            unused=event.unused,
        )
    if isinstance(event, Message):
        return event
    return game.rules.redact(event, viewer)


class TableWatcher:
    def __init__(self, app: TableApplication, store: EventStore, block_ms: int = 500) -> None:
        self.app = app
        self.store = store
        self.fanout = TableFanout(store, block_ms, TableCodec(app.catalog).decode)

    def appended(
        self,
        table_id: str,
        first_version: int,
        events: Sequence[object],
        messages: Sequence[Message],
        recorded_at_ms: int,
    ) -> None:
        """Hand the events this instance appended to its local watchers (the composition
        root makes this the application's `on_appended`): no Redis round trip for them."""
        try:
            self.fanout.publish(
                table_stream(table_id), first_version, events, messages, recorded_at_ms
            )
        except Exception:
            # The append committed: the command must not fail for this. The hub's follower
            # still reads these events from the stream, only a little later.
            log.exception("publishing appended events to local watchers failed", table=table_id)

    def options(self, table: Table) -> table_pb2.TableOptions:
        return translate.options_to_proto(table)

    def view(self, table: Table, principal: Principal) -> table_pb2.TableView:
        return translate.view_to_proto(table, viewer_seat(table, principal))

    def summary(self, table: Table) -> table_pb2.TableSummary:
        return translate.summary_to_proto(table)

    def watch(
        self,
        table_id: str,
        principal: Principal,
        from_version: int,
        stop: threading.Event,
        batch: bool = False,
    ) -> Iterator[WatchMessage]:
        """A fresh view then every later event; or, resuming, every event after from_version.
        With `batch`, the events come several to a message (`WatchTableResponse.events`),
        serialized already (watch_wire.py)."""
        stream = table_stream(table_id)
        if from_version <= 0:
            table = self.app.load(table_id)
            yield table_pb2.WatchTableResponse(view=self.view(table, principal))
        else:
            recorded = self.store.read(stream, 1, limit=from_version)
            if not recorded:
                table = self.app.load(table_id)  # NotFound for an unknown table
            table = fold_recorded(table_id, recorded, catalog=self.app.catalog)
        try:
            yield from self._follow(table, principal, stream, stop, batch)
        except Exception:
            if stop.is_set():
                return  # the watcher went away while we were reading: nothing to report
            raise

    def _follow(
        self,
        table: Table,
        principal: Principal,
        stream: str,
        stop: threading.Event,
        batch: bool,
    ) -> Iterator[WatchMessage]:
        follower = _Follower(table, principal, batch)
        for entries in self.fanout.listen(stream, table.version + 1, stop):
            for message in follower.messages(entries):
                yield message
                if stop.is_set():
                    return

    async def awatch(
        self,
        table_id: str,
        principal: Principal,
        from_version: int,
        batch: bool,
        run_blocking: RunBlocking,
    ) -> AsyncIterator[WatchMessage]:
        """`watch` for an asyncio server: the same messages, and no thread held while the
        stream waits for events (fanout.alisten); the table's load and store reads go through
        `run_blocking`. Ends when the caller stops iterating (the RPC ended or was cancelled)."""
        stream = table_stream(table_id)
        if from_version <= 0:
            table = await run_blocking(self.app.load, table_id)
            yield table_pb2.WatchTableResponse(view=self.view(table, principal))
        else:
            recorded = await run_blocking(self.store.read, stream, 1, from_version)
            if not recorded:
                await run_blocking(self.app.load, table_id)  # NotFound for an unknown table
            table = await run_blocking(self._fold, table_id, recorded)
        follower = _Follower(table, principal, batch)
        async for entries in self.fanout.alisten(stream, table.version + 1, run_blocking):
            for message in follower.messages(entries):
                yield message

    def _fold(self, table_id: str, recorded: Sequence[RecordedEvent]) -> Table:
        return fold_recorded(table_id, recorded, catalog=self.app.catalog)


class _Follower:
    """What one watcher makes of the hub's batches: its seat, as seating events change it
    (only the viewer's seat matters for redaction, and only seating events change it, so a
    watcher follows those instead of folding the whole table for every event), and each
    batch's messages for it."""

    __slots__ = ("batch", "game", "seat", "seed_reveal", "subject", "table_id")

    def __init__(self, table: Table, principal: Principal, batch: bool) -> None:
        self.table_id = table.table_id
        self.game = table.game
        self.subject = principal.subject
        self.seat = viewer_seat(table, principal)
        self.batch = batch
        self.seed_reveal = table.shell.seed_reveal  # (fixed when the table was created)

    def messages(self, entries: Sequence[HubEvent]) -> list[WatchMessage]:
        game = self.game
        first_seat = self.seat
        views: list[_View] = []
        for entry in entries:
            event = entry.event
            seating = None if isinstance(event, Message) else game.seating(event)
            if seating is not None and seating.player == self.subject:
                self.seat = seating.seat
            view = _view_for(self.table_id, entry, self.seat, game, self.seed_reveal)
            if seating is not None and not seating.player and seating.seat == self.seat:
                self.seat = None
            if view is not None:
                views.append(view)
        if not views:
            return []  # only bookkeeping: nothing to send
        if self.batch:
            # A seat that changed inside the batch makes it this watcher's own.
            return [_batch_for(entries, first_seat, views, shared=self.seat == first_seat)]
        return [view.response() for view in views]


class _View:
    """One event as one view sees it (the redacted TableEvent), shared by every watcher of
    the table in this process with that view, in the forms their streams send: a response
    (one event a message) and a batch item (batched, serialized: watch_wire.py)."""

    __slots__ = ("_item", "_response", "event")

    def __init__(self, event: events_pb2.TableEvent) -> None:
        self.event = event
        self._response: table_pb2.WatchTableResponse | None = None
        self._item: bytes | None = None

    def response(self) -> table_pb2.WatchTableResponse:
        if self._response is None:
            self._response = table_pb2.WatchTableResponse(event=self.event)
        return self._response

    def item(self) -> bytes:
        if self._item is None:
            self._item = watch_wire.batch_item(self.event.SerializeToString())
        return self._item


# The keys of the view every viewer gets when redaction leaves an event as it is, and of the
# one view of a service event (views of redacted engine events are keyed by the event).
_UNREDACTED = "unredacted"
_SERVICE_EVENT = "service event"


def _batch_for(
    entries: Sequence[HubEvent], seat: int | None, views: Sequence[_View], shared: bool
) -> bytes:
    """The serialized message of `views` (those of `entries` for a viewer at `seat`); when
    `shared`, made once for every watcher of that seat that takes the same batch (caught-up
    spectators of a table take the same events at once)."""
    key = ("batch", seat, entries[-1].version)
    cache = entries[0].views
    cached: bytes | None = cache.get(key) if shared else None
    if cached is None:
        cached = watch_wire.batch_response([view.item() for view in views])
        if shared:
            cache[key] = cached
    return cached


def _view_for(
    table_id: str,
    entry: HubEvent,
    seat: int | None,
    game: GameTable,
    seed_reveal: int = events_pb2.SEED_REVEAL_AUDITORS,
) -> _View | None:
    """`entry` as a viewer at `seat` sees it (None: not streamed), shared by every watcher of
    the table in this process who sees the same event. Views are keyed by what they show, so
    no viewer ever gets another's: the stored event when redaction leaves it as it is, else
    the redacted event (every seat but their owner's sees the same hidden hole cards). The
    service's own events look the same to every viewer (`redact_any`): redacted once."""
    views = entry.views
    if seat in views:
        cached: _View | None = views[seat]
        return cached
    event = entry.event
    view: _View | None
    if isinstance(event, Message):
        if _SERVICE_EVENT in views:
            view = views[_SERVICE_EVENT]
        else:
            visible = redact_any(event, seat, game, seed_reveal)
            view = None if visible is None else _wrap(table_id, entry, visible, game)
            views[_SERVICE_EVENT] = view
    else:
        # (what redact_any does with a game's event: the hub decoded it, so it is one)
        visible = game.rules.redact(event, seat)
        if visible is None:
            views[seat] = None
            return None
        unredacted = visible is event
        key = _UNREDACTED if unredacted else visible
        view = views.get(key)
        if view is None:
            # Unchanged by redaction: wrap the stored message instead of encoding it again.
            if unredacted:
                view = _View(
                    translate.message_to_proto(
                        table_id, entry.version, entry.recorded_at_ms, entry.message, game
                    )
                )
            else:
                view = _wrap(table_id, entry, visible, game)
            views[key] = view
    views[seat] = view
    return view


def _wrap(table_id: str, entry: HubEvent, visible: object, game: GameTable) -> _View:
    return _View(
        translate.event_to_proto(table_id, entry.version, entry.recorded_at_ms, visible, game)
    )
