"""The watched tables' event streams, read once per process and fanned out to every watcher.

A hub holds the recent events of one table while at least one WatchTable stream of this
process watches it. Each watcher reads from the hub by version, in batches (every event the
hub has for it at once); events older than the hub's window (a resumed watch from far back,
or a watcher that fell behind) come from the store directly.

Events this process appended itself are handed to the hub straight away (`publish`, from the
appending thread, right after the append committed), so its own watchers do not wait for the
Redis round trip. A published batch that does not continue the hub's last version (another
instance wrote in between and the follower has not read it yet) is dropped: the follower
delivers it in order a moment later.

One follower thread waits for new events on every watched table's stream at once (one
`read_new`, i.e. one XREAD, over all of them), which is how other instances' writes arrive.
Its reads start at each hub's last version, whoever brought it there, and it does not decode
entries the hub already has. Redis wakes it for this process's own appends too (it cannot
tell them apart), so it (1) gives publish up to SETTLE_MS to deliver an entry before decoding
it itself, and (2) after a wake that brought nothing new, waits before reading again:
PAUSE_MS, doubled after each such wake in a row up to MAX_PAUSE_MS, back to PAUSE_MS as soon
as a wake brings another writer's events. A wake costs the same whatever it brings (one XREAD
naming every watched table: ~0.7 ms of CPU at 100 tables), so a busy process's own appends
cost one wake per MAX_PAUSE_MS instead of one per append. Both delay only other instances'
writes: by at most SETTLE_MS + PAUSE_MS while they keep coming, SETTLE_MS + MAX_PAUSE_MS for
the first after a while of this process's own (tables are routed to one replica each, so
another's writes are the exception: docs/scale-out.md). On a Redis Cluster
one XREAD cannot span tables (slots): there each table has its own follower. A failed read
(Redis gone) ends every watcher of the follower's tables; an event this build cannot decode
ends only its table's watchers. Either way the next watch starts afresh.

Each event is decoded once per hub (`HubEvent.event`), and what watchers make of it (each
distinct view's redacted, translated event and its serialized batch item, watching.py) is
cached on it, so N watchers of one table do that work once per distinct view instead of N
times.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Sequence
from typing import Any, TypeVar

from google.protobuf.message import Message

from services.shared.eventstore import EventDecodingError, EventStore, RecordedEvent

# Events a hub keeps for watchers that are a little behind.
WINDOW = 2048
# Page size when a watcher catches up from the store.
PAGE = 500
# Most events `listen` yields at once (a watcher far behind catches up in batches this big).
MAX_BATCH = PAGE
# How long one wait of the follower blocks. A table first watched while it waits joins the
# next wait, so other instances' first writes to it can take this long to arrive (its own
# arrive by publish at once); an idle process pays 1000 / FOLLOW_BLOCK_MS reads a second.
FOLLOW_BLOCK_MS = 100
# How long the follower gives this process's publish to deliver entries Redis woke it for
# (ms): the appending thread has the decoded events already, the follower would decode again.
SETTLE_MS = 1.0
# How long the follower waits after a wake that brought nothing new (ms): this process's own
# appends then wake it once per PAUSE_MS at most instead of once per append. Each such wake
# in a row doubles the wait, up to MAX_PAUSE_MS; a wake with another writer's events resets it.
PAUSE_MS = 3.0
MAX_PAUSE_MS = 24.0

Decode = Callable[[Message], object]
T = TypeVar("T")
# How an asyncio watcher runs a blocking call (a store read) without blocking its loop.
RunBlocking = Callable[..., Awaitable[Any]]


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
    """The recent events of one watched table, in version order without gaps."""

    def __init__(self, stream: str, last_version: int, group: str) -> None:
        self.stream = stream
        self.group = group  # the follower that reads it
        self.cond = threading.Condition()
        self.events: list[HubEvent] = []
        self.watchers = 0
        self.failure: BaseException | None = None
        self.last_version = last_version
        # asyncio watchers: per event loop, the Event its watchers of this hub wait on. A
        # change wakes each loop once (one call_soon_threadsafe, whoever made it: publish from
        # an appending thread, the follower), not each watcher.
        self.loops: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}

    def _wake_loops(self) -> None:
        """(cond held) Wake every loop with asyncio watchers of this hub. The loop this runs
        on (a move's publish on the aio runtime) is woken directly: call_soon_threadsafe
        would write to the loop's self-pipe and wake its selector, two system calls an
        append for a loop that is running already."""
        running = asyncio._get_running_loop()
        for loop in list(self.loops):
            if loop is running:
                self._woken(loop)
                continue
            try:
                loop.call_soon_threadsafe(self._woken, loop)
            except RuntimeError:  # that loop is closed: its watchers are gone
                self.loops.pop(loop, None)

    def _woken(self, loop: asyncio.AbstractEventLoop) -> None:
        """(on `loop`) Set the Event its watchers hold and give later waits a fresh one."""
        event = self.loops.get(loop)
        if event is not None:
            self.loops[loop] = asyncio.Event()
            event.set()

    def loop_event(self) -> asyncio.Event:
        """(on the running loop) The Event that the next change of this hub sets: take it
        before looking at the hub, then wait on it, and no change is missed."""
        loop = asyncio.get_running_loop()
        with self.cond:
            event = self.loops.get(loop)
            if event is None:
                event = self.loops[loop] = asyncio.Event()
            return event

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
            self._wake_loops()

    def settle(self, version: int, timeout_s: float) -> int:
        """The hub's last version once it reaches `version` or `timeout_s` has passed."""
        if self.last_version < version and timeout_s > 0:
            with self.cond:
                self.cond.wait_for(lambda: self.last_version >= version, timeout_s)
        return self.last_version

    def fail(self, failure: BaseException) -> None:
        with self.cond:
            self.failure = failure
            self.cond.notify_all()
            self._wake_loops()

    def window_from(self, version: int, limit: int) -> list[HubEvent] | None:
        """At most `limit` events >= version held in memory; None when they start before the
        window."""
        if not self.events or version < self.events[0].version:
            return None if version <= self.last_version else []
        offset = version - self.events[0].version
        return self.events[offset : offset + limit]


class TableFanout:
    def __init__(
        self,
        store: EventStore,
        block_ms: int = 500,
        decode: Decode = lambda m: m,
        *,
        settle_ms: float = SETTLE_MS,
        pause_ms: float = PAUSE_MS,
        max_pause_ms: float = MAX_PAUSE_MS,
    ) -> None:
        self.store = store
        self.block_ms = block_ms  # how often a waiting watcher checks whether it was stopped
        self.decode = decode
        self.settle_s = settle_ms / 1000
        self.pause_s = pause_ms / 1000
        self.max_pause_s = max(max_pause_ms, pause_ms) / 1000
        # Each follower's wait after its last wake that brought nothing new (by group).
        self.pauses: dict[str, float] = {}
        # Every stream in one follower, unless one read cannot wait on several (a cluster).
        self._per_stream = bool(getattr(store, "cluster", False))
        self._hubs: dict[str, _Hub] = {}
        self._followers: dict[str, threading.Thread] = {}  # by group
        self._lock = threading.Lock()

    def _join(self, stream: str) -> _Hub:
        with self._lock:
            # (A failed hub is never found here: it is failed and removed in one locked step.)
            hub = self._hubs.get(stream)
            if hub is None:
                group = stream if self._per_stream else ""
                hub = _Hub(stream, self.store.version(stream), group)
                self._hubs[stream] = hub
                if group not in self._followers:
                    follower = threading.Thread(
                        target=self._follow, args=(group,), name=f"fanout{group}", daemon=True
                    )
                    self._followers[group] = follower
                    follower.start()
            hub.watchers += 1
            return hub

    def _leave(self, hub: _Hub) -> None:
        with self._lock:
            hub.watchers -= 1
            if hub.watchers == 0 and self._hubs.get(hub.stream) is hub:
                del self._hubs[hub.stream]  # its follower drops it from its next wait

    def _follow(self, group: str) -> None:
        """Wait for new events of every hub of `group` at once, until it has none left."""
        self.pauses[group] = self.pause_s
        try:
            while True:
                with self._lock:
                    hubs = {s: h for s, h in self._hubs.items() if h.group == group}
                    if not hubs:
                        del self._followers[group]
                        self.pauses.pop(group, None)
                        return
                try:
                    found, woken = self._read_new(hubs)
                except EventDecodingError:
                    # A table's stream holds an event this build cannot read (written by a
                    # newer instance): that table's watchers end with the error, not all.
                    found, woken = self._read_each(hubs), True
                for stream, records in found.items():
                    try:
                        # One reply holds whole appends (each is one script): add it at once.
                        entries = [HubEvent.of(record, self.decode) for record in records]
                    except Exception as exc:  # (the table's own decode: as above)
                        self._fail(hubs[stream], exc)
                        continue
                    hubs[stream].add(entries)
                self._pause(group, bool(found), woken)
        except BaseException as exc:
            with self._lock:
                self._followers.pop(group, None)
                self.pauses.pop(group, None)
                for stream, hub in list(self._hubs.items()):
                    if hub.group == group:
                        hub.fail(exc)  # its watchers end with it; the next watch starts afresh
                        del self._hubs[stream]

    def _pause(self, group: str, found: bool, woken: bool) -> None:
        """After a wake: none after another writer's events (and the wait is reset) or after a
        wait that timed out; else (this process's own appends only) the current wait, which
        then doubles up to max_pause_s."""
        if found:
            self.pauses[group] = self.pause_s
            return
        pause = self.pauses.get(group, self.pause_s)
        if woken and pause:
            time.sleep(pause)
            self.pauses[group] = min(pause * 2, self.max_pause_s)

    def _read_each(self, hubs: dict[str, _Hub]) -> dict[str, list[RecordedEvent]]:
        """The new events of each hub read on their own, failing the hubs that cannot be."""
        found: dict[str, list[RecordedEvent]] = {}
        for stream, hub in hubs.items():
            try:
                records = self.store.read(stream, hub.last_version + 1, limit=PAGE)
            except EventDecodingError as exc:
                self._fail(hub, exc)
                continue
            if records:
                found[stream] = records
        return found

    def _fail(self, hub: _Hub, failure: BaseException) -> None:
        with self._lock:
            hub.fail(failure)
            if self._hubs.get(hub.stream) is hub:
                del self._hubs[hub.stream]  # the next watch of the table starts a fresh hub

    def _read_new(self, hubs: dict[str, _Hub]) -> tuple[dict[str, list[RecordedEvent]], bool]:
        """One wait for the events after each hub's last version, without those publish
        delivers within SETTLE_MS of their arrival; and whether Redis answered with any entry
        (True) or at the end of the wait."""
        settled_by: list[float] = []

        def known(stream: str, newest: int) -> int:
            if not settled_by:  # one SETTLE_MS for the whole reply, however many tables
                settled_by.append(time.monotonic() + self.settle_s)
            return hubs[stream].settle(newest, settled_by[0] - time.monotonic())

        found = self.store.read_new(
            {stream: hub.last_version for stream, hub in hubs.items()},
            block_ms=FOLLOW_BLOCK_MS,
            known=known,
        )
        return found, bool(settled_by)

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
    ) -> Generator[Sequence[HubEvent], None, None]:
        """Every event of `stream` with version >= from_version, then new ones, until stop.

        Yields batches of consecutive events: each is every event available when it is taken
        (at most MAX_BATCH), so a watcher that sends one message per batch sends fewer the
        busier the table is. A hub takes each append's events at once (publish and the
        follower both add whole appends), so a watcher that is caught up gets at least one
        whole append per batch."""
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

    async def alisten(
        self, stream: str, from_version: int, run_blocking: RunBlocking
    ) -> AsyncGenerator[Sequence[HubEvent], None]:
        """`listen` for an asyncio watcher: the same batches, awaited. It holds no thread
        while it waits (the hub wakes its loop); store reads (joining a hub, a watcher behind
        the window) go through `run_blocking`. Ends when the caller stops iterating or is
        cancelled; raises what failed the hub."""
        hub = await run_blocking(self._join, stream)
        try:
            next_version = from_version
            while True:
                woken = hub.loop_event()
                with hub.cond:
                    if hub.failure is not None:
                        raise hub.failure
                    batch = (
                        hub.window_from(next_version, MAX_BATCH)
                        if hub.last_version >= next_version
                        else []
                    )
                if batch is None:  # older than the hub's window: read the store
                    records = await run_blocking(self.store.read, stream, next_version, PAGE)
                    batch = [HubEvent.of(record, self.decode) for record in records]
                if not batch:
                    await woken.wait()
                    continue
                yield batch
                next_version = batch[-1].version + 1
        finally:
            self._leave(hub)
