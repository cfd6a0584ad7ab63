"""One event-store subscription per watched table, fanned out to every watcher in the process.

A hub follows a table's stream (one blocking read, one Redis connection) while at least one
WatchTable stream of this process watches that table, and keeps the recent events in memory.
Each watcher reads from the hub by version; events older than the hub's window (a resumed
watch from far back, or a watcher that fell behind) come from the store directly. Redaction
happens per watcher, after the fan-out (watching.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from services.shared.eventstore import EventStore, RecordedEvent

# Events a hub keeps for watchers that are a little behind.
WINDOW = 2048
# Page size when a watcher catches up from the store.
PAGE = 500


class _Hub:
    def __init__(self, store: EventStore, stream: str, block_ms: int) -> None:
        self.store = store
        self.stream = stream
        self.block_ms = block_ms
        self.cond = threading.Condition()
        self.events: list[RecordedEvent] = []
        self.watchers = 0
        self.stop = threading.Event()
        self.failure: BaseException | None = None
        self.start_version = store.version(stream) + 1
        self.last_version = self.start_version - 1
        self.thread = threading.Thread(target=self._follow, name=f"fanout-{stream}", daemon=True)
        self.thread.start()

    def _follow(self) -> None:
        try:
            for record in self.store.subscribe(
                self.stream, self.start_version, block_ms=self.block_ms, stop=self.stop
            ):
                with self.cond:
                    self.events.append(record)
                    if len(self.events) > WINDOW:
                        del self.events[: len(self.events) - WINDOW]
                    self.last_version = record.version
                    self.cond.notify_all()
        except BaseException as exc:
            with self.cond:
                self.failure = exc
                self.cond.notify_all()

    def window_from(self, version: int) -> list[RecordedEvent] | None:
        """Events >= version held in memory; None when they start before the window."""
        if not self.events or version < self.events[0].version:
            return None if version <= self.last_version else []
        offset = version - self.events[0].version
        return self.events[offset:]


class TableFanout:
    def __init__(self, store: EventStore, block_ms: int = 500) -> None:
        self.store = store
        self.block_ms = block_ms
        self._hubs: dict[str, _Hub] = {}
        self._lock = threading.Lock()

    def _join(self, stream: str) -> _Hub:
        with self._lock:
            hub = self._hubs.get(stream)
            if hub is None or hub.stop.is_set() or hub.failure is not None:
                hub = _Hub(self.store, stream, self.block_ms)
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

    def listen(
        self, stream: str, from_version: int, stop: threading.Event
    ) -> Iterator[RecordedEvent]:
        """Every event of `stream` with version >= from_version, then new ones, until stop."""
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
                    batch = hub.window_from(next_version)
                if batch is None:  # older than the hub's window: read the store
                    batch = self.store.read(stream, next_version, limit=PAGE)
                for record in batch:
                    if record.version < next_version:
                        continue
                    yield record
                    next_version = record.version + 1
                    if stop.is_set():
                        return
        finally:
            self._leave(hub)
