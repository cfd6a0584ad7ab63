"""Tables in memory and on their streams: load (a cached state plus any newer events), lock,
append once under the loaded version, mark in the attention set before writing.

Every write goes through `append`: ONE append of a batch guarded by the version it was
decided on and keyed deterministically, so a retry or a second instance never doubles it; a
Conflict (someone else wrote first) forgets the cached state and answers None, for the
caller to load and decide again. `on_appended` (wired by the composition root) hears of every
append this instance makes, so local watchers get the events without a Redis round trip.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from google.protobuf.message import Message

from services.shared import errors
from services.shared.eventstore import EventStore, RecordedEvent
from services.table.attention import AttentionSet
from services.table.folding import fold_events, fold_recorded, table_stream
from services.table.games.catalog import Catalog
from services.table.shell import Table
from services.table.snapshots import SNAPSHOT_EVERY, Snapshots

# Told (table id, first version, events, their messages, now ms) after each append.
Appended = Callable[[str, int, Sequence[object], list[Message], int], None]


class Tables:
    """The tables this instance reads and writes, cached by id."""

    def __init__(
        self,
        store: EventStore,
        attention: AttentionSet,
        recovery_grace_s: float,
        clock: Callable[[], int],
        catalog: Catalog,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.store = store
        self.catalog = catalog
        # The tables' snapshots: read by a cold load, written in the background (snapshots.py).
        self.snapshots = Snapshots(store, catalog, snapshot_every)
        self.attention = attention
        self.recovery_grace_s = recovery_grace_s
        self.clock = clock
        self._cache: dict[str, Table] = {}
        self._locks: dict[str, threading.Lock] = {}
        self.guard = threading.Lock()
        # Tables this instance marked in the attention set, with the monotonic time of the
        # mark: a table is marked again only once its mark is half a recovery grace old, so
        # the recovery sweep (which takes marks a whole grace old) never takes a table this
        # instance is still writing (attention.py, recovery.py).
        self._marked: dict[str, float] = {}
        self._seen: set[str] = set()  # tables this instance has loaded at least once
        self.on_appended: Appended | None = None
        # Told the id of a table loaded for the first time here while its process was left
        # unfinished (the application hands it to the background retrier).
        self.on_unfinished: Callable[[str], None] = lambda table_id: None
        # Whether a table has process steps to take (the process manager's `next_step`).
        self.unfinished: Callable[[Table], bool] = lambda table: False

    def lock(self, table_id: str) -> threading.Lock:
        with self.guard:
            return self._locks.setdefault(table_id, threading.Lock())

    def load(self, table_id: str) -> Table:
        """The table at its latest version (cached state + newer events). NotFound if none."""
        cached = self._cache.get(table_id)
        stream = table_stream(table_id)
        if cached is None:
            table = self.cold_load(table_id)
            with self.guard:
                first = table_id not in self._seen
                self._seen.add(table_id)
            if first and self.unfinished(table):
                # Left mid-process by an instance that failed (or is failing now): finish it
                # in the background, without waiting for anyone's command.
                self.on_unfinished(table_id)
        else:
            newer = self._read(stream, cached.version + 1)
            table = fold_recorded(table_id, newer, cached, self.catalog) if newer else cached
        self.remember(table)
        return table

    def cold_load(self, table_id: str) -> Table:
        """The table from its latest trusted snapshot and the events after it, or from all
        its events when there is no snapshot to trust. NotFound if none."""
        stream = table_stream(table_id)
        start = self.snapshots.load(table_id)
        if start is not None:
            newer = self._read(stream, start.version + 1)
            return fold_recorded(table_id, newer, start, self.catalog) if newer else start
        recorded = self._read(stream)
        if not recorded:
            raise errors.NotFound(f"table {table_id} does not exist")
        return fold_recorded(table_id, recorded, catalog=self.catalog)

    def _read(self, stream: str, from_version: int = 1) -> list[RecordedEvent]:
        """The stream's events from `from_version`, once the replicas the store waits for
        have them. What is read may still be on the master alone (another instance's append
        whose wait for the replicas failed, or is under way): a table is decided on, cached
        and answered from only once they have it, or a failover that lost those events would
        leave this instance holding a table the stream no longer has (its next deal would
        name a place the dealer never dealt). Nothing read, nothing to wait for."""
        events = self.store.read(stream, from_version)
        if events:
            self.store.wait_for_replicas(stream)
        return events

    def current(self, table_id: str) -> Table:
        """The cached table (possibly behind another instance's writes), else a fresh load."""
        cached = self._cache.get(table_id)
        return cached if cached is not None else self.load(table_id)

    def cached(self, table_id: str) -> Table | None:
        """The cached table, if this instance has one (no read)."""
        return self._cache.get(table_id)

    def remember(self, table: Table) -> None:
        with self.guard:
            cached = self._cache.get(table.table_id)
            if cached is None or cached.version < table.version:
                self._cache[table.table_id] = table
        self.snapshots.offer(table)

    def forget(self, table_id: str) -> None:
        with self.guard:
            self._cache.pop(table_id, None)

    def confirm(self, table_id: str) -> None:
        """Before answering a retry from the remembered keys: the table's events so far are
        on the replicas the store waits for (EventStore.wait_for_replicas)."""
        self.store.wait_for_replicas(table_stream(table_id))

    def mark(self, table_id: str) -> None:
        """Mark the table in the attention set before writing it (unless this instance marked
        it less than half a recovery grace ago): if this instance fails before the table's
        process steps and triggers are done, the recovery sweep finds it there."""
        if self.mark_due(table_id):
            self.attention.mark(table_id, self.clock())
            self._marked[table_id] = time.monotonic()

    def mark_due(self, table_id: str) -> bool:
        """Whether writing the table now needs a new mark (`mark` writes one only then)."""
        last = self._marked.get(table_id)
        return last is None or time.monotonic() - last >= self.recovery_grace_s / 2

    def append(
        self, table: Table, batch: Sequence[object], key: str, folded: Table | None = None
    ) -> Table | None:
        """Append `batch` after the table's version; None when someone else wrote first.
        `folded` is the table the batch makes when appended right after `table`'s version
        (saves folding it again)."""
        messages = to_messages(table, batch)
        try:
            result = self.store.append(table_stream(table.table_id), messages, table.version, key)
        except errors.Conflict:
            self.forget(table.table_id)
            return None
        if result.deduplicated:
            self.forget(table.table_id)
            return self.load(table.table_id)
        return self.appended(table, batch, messages, result.first_version, folded)

    def appended(
        self,
        table: Table,
        batch: Sequence[object],
        messages: list[Message],
        first_version: int,
        folded: Table | None,
    ) -> Table:
        """(after an append of `batch` at `first_version`, not a deduplicated one) Tell the
        listener, cache the table it made and return it."""
        if self.on_appended is not None:
            self.on_appended(table.table_id, first_version, batch, messages, self.clock())
        if folded is None or first_version != table.version + 1:
            folded = fold_events(table, batch, first_version)
        self.remember(folded)
        return folded


def to_messages(table: Table, batch: Sequence[object]) -> list[Message]:
    """The stored form of a batch: the envelope's messages as they are, the game's events
    through its codec."""
    encode = table.game.events.to_message
    return [e if isinstance(e, Message) else encode(e) for e in batch]
