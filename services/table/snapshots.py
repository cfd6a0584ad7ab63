"""Snapshots of tables, so a cold load folds only the events after the latest one.

A table's stream is never trimmed: without a snapshot, the first load of a table on an
instance (a restart, a second instance, a table evicted and read again) folds every event
since the table was created. `Snapshots` keeps, beside each stream, the table's state at one
version (`TableSnapshot`: the game's state through its rules' `encode_state`, the shell's
bookkeeping through the same codec, a SHA-256 digest over both) and `load` starts from it.

Trust: a snapshot is an optimisation, never the truth. One that is missing, of another
schema, of another game than its stream's, of another state shape, or whose digest does not
match is ignored and the table is replayed from its first event (the stream decides). A
snapshot is written only of a table this instance folded from the stream to that version.

Off the command's path: `offer` (called for every table the instance caches) only notes a
table that is `every` events past its last snapshot; one background thread encodes and saves
the newest such table of each id. A failed save is logged and tried again `every` events later.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable

import structlog

from croupier.table.v1 import events_pb2
from services.games import timebank
from services.games.state_codec import StateCodec, StateDecodeError, decode_as, mapping_as_pairs
from services.shared import errors
from services.shared.eventstore import EventStore
from services.table import shell
from services.table.command_keys import CommandKeys
from services.table.folding import table_stream
from services.table.games.catalog import Catalog
from services.table.shell import ShellState, Table

log = structlog.get_logger(__name__)

# The TableSnapshot message's schema (bumped when its meaning changes: older ones are ignored).
SCHEMA_VERSION = 1
# Events between two snapshots of a table: a cold load folds at most about this many events
# after its snapshot; a snapshot costs one encode and one Redis write per this many events
# (docs/perf/table.md, "Cold loads").
SNAPSHOT_EVERY = 1000

# The shell's bookkeeping records (a new field or record shape bumps the version).
SHELL_CODEC = StateCodec(
    "table-shell",
    6,
    (shell, timebank),
    custom=(mapping_as_pairs(CommandKeys, CommandKeys.of),),
)


def digest(game: str, version: int, game_state: bytes, shell_state: bytes) -> bytes:
    h = hashlib.sha256()
    for part in (game.encode(), str(version).encode(), game_state, shell_state):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.digest()


def encode(table: Table) -> events_pb2.TableSnapshot:
    """The snapshot of `table` at its version."""
    game_state = table.game.rules.encode_state(table.state)
    shell_state = SHELL_CODEC.encode(table.shell)
    return events_pb2.TableSnapshot(
        game=table.game.name,
        version=table.version,
        game_state=game_state,
        shell_state=shell_state,
        digest=digest(table.game.name, table.version, game_state, shell_state),
    )


def decode(
    table_id: str, stored_version: int, snapshot: events_pb2.TableSnapshot, catalog: Catalog
) -> Table:
    """The table a snapshot holds; StateDecodeError when it cannot be trusted."""
    expected = digest(snapshot.game, snapshot.version, snapshot.game_state, snapshot.shell_state)
    if snapshot.digest != expected:
        raise StateDecodeError("its digest does not match its contents")
    if snapshot.version != stored_version:
        raise StateDecodeError(f"it says version {snapshot.version}, stored as {stored_version}")
    try:
        game = catalog.named(snapshot.game)
    except errors.FailedPrecondition as exc:  # a game this service does not host
        raise StateDecodeError(str(exc)) from None
    state = game.rules.decode_state(snapshot.game_state)
    shell_state = decode_as(SHELL_CODEC, snapshot.shell_state, ShellState)
    if shell_state.table_id != table_id or shell_state.game != game.name:
        raise StateDecodeError(f"it is table {shell_state.table_id!r} of {shell_state.game!r}")
    return Table(table_id, snapshot.version, game, state, shell_state)


class Snapshots:
    """Reads a table's snapshot for a cold load; writes new ones in the background."""

    def __init__(self, store: EventStore, catalog: Catalog, every: int = SNAPSHOT_EVERY) -> None:
        self.store = store
        self.catalog = catalog
        self.every = every
        self._lock = threading.Condition()
        self._due: dict[str, Table] = {}  # the newest table of each id waiting to be saved
        self._saved: dict[str, int] = {}  # table id -> version of its latest snapshot
        self._busy = False
        self._thread: threading.Thread | None = None
        # Told (table id, version) after each snapshot is saved (tests, metrics).
        self.on_saved: Callable[[str, int], None] = lambda table_id, version: None

    # --- reading ------------------------------------------------------------------------

    def load(self, table_id: str) -> Table | None:
        """The table at its latest trusted snapshot, None when there is none to trust."""
        if self.every <= 0:
            return None
        stream = table_stream(table_id)
        try:
            found = self.store.load_snapshot(stream, events_pb2.TableSnapshot, SCHEMA_VERSION)
        except Exception as exc:  # a payload that does not parse, a store that failed
            log.warning("table_snapshot_ignored", table_id=table_id, reason=str(exc))
            return None
        if found is None:
            return None
        version, snapshot = found
        try:
            table = decode(table_id, version, snapshot, self.catalog)
        except StateDecodeError as exc:
            log.warning("table_snapshot_ignored", table_id=table_id, reason=str(exc))
            return None
        with self._lock:
            self._saved[table_id] = max(self._saved.get(table_id, 0), version)
        return table

    # --- writing ------------------------------------------------------------------------

    def offer(self, table: Table) -> None:
        """Note `table` (folded to its version): saved in the background once it is `every`
        events past the table's last snapshot."""
        if self.every <= 0 or table.version - self._saved.get(table.table_id, 0) < self.every:
            return
        with self._lock:
            due = self._due.get(table.table_id)
            if due is None or due.version < table.version:
                self._due[table.table_id] = table
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="table-snapshots", daemon=True
                )
                self._thread.start()
            self._lock.notify()

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every snapshot offered so far is written (True) or `timeout_s` passed."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._due and not self._busy, timeout_s)

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: bool(self._due))
                table_id, table = self._due.popitem()
                self._busy = True
                # (marked saved before the write: offers meanwhile wait `every` more events)
                self._saved[table_id] = table.version
            try:
                self._save(table)
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()

    def _save(self, table: Table) -> None:
        try:
            snapshot = encode(table)
            self.store.save_snapshot(
                table_stream(table.table_id), table.version, snapshot, SCHEMA_VERSION
            )
        except Exception as exc:  # an optimisation only: the stream stays the truth
            log.warning(
                "table_snapshot_failed",
                table_id=table.table_id,
                version=table.version,
                error=str(exc),
            )
            return
        self.on_saved(table.table_id, table.version)
