"""One event-store subscription per watched table, fanned out to every watcher in the process.

A hub follows a table's stream (one blocking read, one Redis connection) while at least one
WatchTable stream of this process watches that table, and keeps the recent events in memory.
Each watcher reads from the hub by version; events older than the hub's window (a resumed
watch from far back, or a watcher that fell behind) come from the store directly.

Events this process appended itself are also handed to the hub straight away (`publish`, from
the appending thread, right after the append committed), so its own watchers do not wait for
the Redis round trip and the follower's wake-up; the follower still reads every event, which
is how other instances' writes arrive, and skips the versions the hub already has. A published
batch that does not continue the hub's last version (another instance wrote in between and the
follower has not read it yet) is dropped: the follower delivers it in order a moment later.

Each event is decoded once per hub (`HubEvent.event`), and what watchers make of it (the
redacted, translated message per viewer seat, watching.py) is cached on it, so N watchers of
one table do that work once per distinct view instead of N times.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from google.protobuf.message import Message

from services.shared.eventstore import EventStore, RecordedEvent

# Events a hub keeps for watchers that are a little behind.
WINDOW = 2048
# Page size when a watcher catches up from the store.
PAGE = 500
# Most events `listen` yields at once (a watcher far behind catches up in batches this big).
MAX_BATCH = PAGE

Decode = Callable[[Message], object]


class HubEvent:
    """One event of a table as the watchers of this process share it."""

    __slots__ = ("event", "message", "recorded_at_ms", "version", "views")

    def __init__(self, version: int, recorded_at_ms: int, event: object, message: Message) -> None:
        self.version = version
        self.recorded_at_ms = recorded_at_ms
        self.event = event  # decoded (an engine dataclass or the shell's protobuf message)
        self.message = message  # the stored protobuf form of `event`
        # What watchers derived from it, by their own key (watching.py: the viewer's seat).
        # Filled without a lock: two threads computing the same entry store equal values.
        self.views: dict[Any, Any] = {}

    @classmethod
    def of(cls, record: RecordedEvent, decode: Decode) -> HubEvent:
        return cls(record.version, record.recorded_at_ms, decode(record.message), record.message)


class _Hub:
    def __init__(self, store: EventStore, stream: str, block_ms: int, decode: Decode) -> None:
        self.store = store
        self.stream = stream
        self.block_ms = block_ms
        self.decode = decode
        self.cond = threading.Condition()
        self.events: list[HubEvent] = []
        self.watchers = 0
        self.stop = threading.Event()
        self.failure: BaseException | None = None
        self.last_version = store.version(stream)
        self.thread = threading.Thread(target=self._follow, name=f"fanout-{stream}", daemon=True)
        self.thread.start()

    def _follow(self) -> None:
        try:
            while not self.stop.is_set():
                # From the last version the hub has, whoever gave it (this follower or a
                # publish), and once the reply is in, without decoding what publish added
                # meanwhile: this process's own appends cost the follower no decoding.
                found = self.store.read_new(
                    {self.stream: self.last_version}, block_ms=self.block_ms, known=self._known
                )
                records = found.get(self.stream)
                if records:
                    # One XREAD reply holds whole appends (each is one script): add it at once.
                    self.add([HubEvent.of(record, self.decode) for record in records])
        except BaseException as exc:
            with self.cond:
                self.failure = exc
                self.cond.notify_all()

    def _known(self, stream: str) -> int:
        return self.last_version

    def add(self, batch: Sequence[HubEvent]) -> None:
        """Append the events that continue the hub's last version; ignore ones it has."""
        with self.cond:
            added = False
            for entry in batch:
                if entry.version <= self.last_version:
                    continue
                if entry.version != self.last_version + 1:
                    break  # a gap: the follower reads the missing versions, then these
                self.events.append(entry)
                self.last_version = entry.version
                added = True
            if not added:
                return
            # Trim in chunks: deleting one entry per event would shift the whole window.
            if len(self.events) > 2 * WINDOW:
                del self.events[: len(self.events) - WINDOW]
            self.cond.notify_all()

    def window_from(self, version: int, limit: int) -> list[HubEvent] | None:
        """At most `limit` events >= version held in memory; None when they start before the
        window."""
        if not self.events or version < self.events[0].version:
            return None if version <= self.last_version else []
        offset = version - self.events[0].version
        return self.events[offset : offset + limit]


class TableFanout:
    def __init__(
        self, store: EventStore, block_ms: int = 500, decode: Decode = lambda m: m
    ) -> None:
        self.store = store
        self.block_ms = block_ms
        self.decode = decode
        self._hubs: dict[str, _Hub] = {}
        self._lock = threading.Lock()

    def _join(self, stream: str) -> _Hub:
        with self._lock:
            hub = self._hubs.get(stream)
            if hub is None or hub.stop.is_set() or hub.failure is not None:
                hub = _Hub(self.store, stream, self.block_ms, self.decode)
                self._hubs[stream] = hub
            hub.watchers += 1
            return hub

    def _leave(self, hub: _Hub) -> None:
        with self._lock:
            hub.watchers -= 1
            if hub.watchers == 0:
                hub.stop.set()
                if self._hubs.get(hub.stream) is hub:
                    del self._hubs[hub.stream]

    def publish(
        self,
        stream: str,
        first_version: int,
        events: Sequence[object],
        messages: Sequence[Message],
        recorded_at_ms: int,
    ) -> None:
        """Hand events this process just appended (versions first_version...) to the hub of
        `stream`, if anyone here watches it. `events` are the decoded forms of `messages`."""
        hub = self._hubs.get(stream)
        if hub is None:
            return
        hub.add(
            [
                HubEvent(first_version + i, recorded_at_ms, event, message)
                for i, (event, message) in enumerate(zip(events, messages, strict=True))
            ]
        )

    def listen(
        self, stream: str, from_version: int, stop: threading.Event
    ) -> Iterator[Sequence[HubEvent]]:
        """Every event of `stream` with version >= from_version, then new ones, until stop.

        Yields batches of consecutive events: each is every event available when it is taken
        (at most MAX_BATCH), so a watcher that sends one message per batch sends fewer the
        busier the table is, and a hub never holds part of an append (`add` takes an append's
        events at once), so a caught-up watcher gets at least one whole append per batch."""
        hub = self._join(stream)
        try:
            next_version = from_version
            while not stop.is_set():
                with hub.cond:
                    if hub.failure is not None:
                        raise hub.failure
                    if hub.last_version < next_version:
                        hub.cond.wait(self.block_ms / 1000)
                        continue
                    batch = hub.window_from(next_version, MAX_BATCH)
                if batch is None:  # older than the hub's window: read the store
                    batch = [
                        HubEvent.of(record, self.decode)
                        for record in self.store.read(stream, next_version, limit=PAGE)
                    ]
                if not batch:
                    continue
                # (both start at next_version: the window has no gaps)
                yield batch
                next_version = batch[-1].version + 1
        finally:
            self._leave(hub)
