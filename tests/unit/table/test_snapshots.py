"""Cold loads from snapshots: a table played through the application, snapshotted in the
background every few dozen events, loads from any of its snapshots plus the events after it to
exactly the table a replay from the first event gives; a snapshot that cannot be trusted
(tampered, of another version, game or table, or garbage) is ignored and the table replayed."""

from __future__ import annotations

import random
import threading

import pytest

from bench.bench_table_steps import weighted_act
from croupier.table.v1 import events_pb2
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared.eventstore import InMemoryEventStore
from services.table import codec, snapshots
from services.table.application import TableApplication, TableSpec
from services.table.attention import InMemoryAttentionSet
from services.table.folding import fold_recorded, table_stream
from services.table.games.catalog import CATALOG
from services.table.ports import NoScheduler
from services.table.shell import Table
from services.table.tables import Tables
from tests.fixtures.table_ports import InProcessDealer, NullLedger

EVERY = 40
TABLE = "snap"


Saved = list[tuple[int, events_pb2.TableSnapshot]]


def _played(acts: int, seed: int = 1) -> tuple[TableApplication, InMemoryEventStore, Saved]:
    store = InMemoryEventStore(codec.registry())
    app = TableApplication(store, InProcessDealer(), NullLedger(), LibraryRanker(), NoScheduler())
    app.tables.snapshots.every = EVERY
    saved: Saved = []
    lock = threading.Lock()

    def keep(table_id: str, version: int) -> None:
        found = store.load_snapshot(table_stream(table_id), events_pb2.TableSnapshot)
        assert found is not None
        with lock:
            saved.append(found)

    app.tables.snapshots.on_saved = keep
    config = TableConfig(game=TEXAS_HOLDEM, seats=6)
    app.create_table(TableSpec(config, table_id=TABLE, min_players_to_start=6), "house", "c")
    for seat in range(6):
        app.join(TABLE, f"p{seat}", seat, 10**6, "", f"join-{seat}")
    rng = random.Random(seed)
    for n in range(acts):
        player, act = weighted_act(app.current(TABLE).state.engine, rng)
        app.act(TABLE, player, act, f"act-{n}", None)
        if n % 50 == 0:
            assert app.tables.snapshots.flush()  # (snapshots at many versions, not only the last)
    assert app.tables.snapshots.flush()
    return app, store, saved


def _replayed(store: InMemoryEventStore) -> Table:
    return fold_recorded(TABLE, store.read(table_stream(TABLE)), catalog=CATALOG)


def _cold(store: InMemoryEventStore) -> Table:
    """The table as a new instance loads it."""
    tables = Tables(store, InMemoryAttentionSet(), 5.0, lambda: 0, CATALOG, snapshot_every=EVERY)
    return tables.load(TABLE)


def test_a_table_resumed_from_any_snapshot_is_the_table_replayed_from_its_first_event() -> None:
    app, store, saved = _played(400)
    replayed = _replayed(store)
    assert len(saved) >= 10, "snapshots were written in the background as the table played"
    assert [v for v, _ in saved] == sorted(v for v, _ in saved)
    for version, snapshot in saved:
        start = snapshots.decode(TABLE, version, snapshot, CATALOG)
        assert start == fold_recorded(TABLE, store.read(table_stream(TABLE), 1, version))
        tail = store.read(table_stream(TABLE), version + 1)
        resumed = fold_recorded(TABLE, tail, start, CATALOG) if tail else start
        assert resumed == replayed
    assert replayed == app.current(TABLE)
    # A new instance loads it from the latest snapshot, folding only the events after it.
    latest, _ = saved[-1]
    assert store.version(table_stream(TABLE)) - latest < EVERY + 20
    assert _cold(store) == replayed


def test_the_cold_table_plays_on_exactly_like_the_replayed_one() -> None:
    _, store, _ = _played(120)
    cold, replayed = _cold(store), _replayed(store)
    assert cold == replayed
    assert cold.game.rules.pending_chance(cold.state) == replayed.game.rules.pending_chance(
        replayed.state
    )
    assert list(cold.game.rules.deadlines(cold.state)) == list(
        replayed.game.rules.deadlines(replayed.state)
    )


def _tampered(snapshot: events_pb2.TableSnapshot, how: str) -> events_pb2.TableSnapshot:
    bad = events_pb2.TableSnapshot()
    bad.CopyFrom(snapshot)
    if how == "stack changed, digest kept":
        bad.shell_state = bad.shell_state.replace(b'"p0"', b'"px"')
        bad.game_state = bad.game_state.replace(b"100", b"900", 1)
    elif how == "garbage state, digest recomputed":
        bad.game_state = b"\x00garbage"
    elif how == "another game, digest recomputed":
        bad.game = "spit"
    elif how == "another table, digest recomputed":
        bad.shell_state = bad.shell_state.replace(b'"snap"', b'"other"')
    elif how == "older shape, digest recomputed":
        bad.game_state = bad.game_state.replace(b'[1,"poker",2,', b'[1,"poker",1,', 1)
    elif how == "claims another version, digest recomputed":
        bad.version = 10**6
    if "recomputed" in how:
        bad.digest = snapshots.digest(bad.game, bad.version, bad.game_state, bad.shell_state)
    return bad


@pytest.mark.parametrize(
    "how",
    [
        "stack changed, digest kept",
        "garbage state, digest recomputed",
        "another game, digest recomputed",
        "another table, digest recomputed",
        "older shape, digest recomputed",
        "claims another version, digest recomputed",
    ],
)
def test_a_snapshot_that_cannot_be_trusted_is_ignored_and_the_stream_replayed(how: str) -> None:
    _, store, saved = _played(120)
    _, snapshot = saved[-1]
    stream = table_stream(TABLE)
    bad = _tampered(snapshot, how)
    assert bad != snapshot
    newest = store.version(stream)  # (not older than the good one: it replaces it)
    store.save_snapshot(stream, newest, bad)
    assert store.load_snapshot(stream, events_pb2.TableSnapshot) == (newest, bad)
    tables = Tables(store, InMemoryAttentionSet(), 5.0, lambda: 0, CATALOG, snapshot_every=EVERY)
    assert tables.snapshots.load(TABLE) is None
    assert tables.load(TABLE) == _replayed(store)


def test_a_snapshot_of_another_schema_version_is_not_read() -> None:
    _, store, saved = _played(120)
    _, snapshot = saved[-1]
    stream = table_stream(TABLE)
    store.save_snapshot(stream, store.version(stream), snapshot, schema_version=2)
    assert store.load_snapshot(stream, events_pb2.TableSnapshot, schema_version=2) is not None
    tables = Tables(store, InMemoryAttentionSet(), 5.0, lambda: 0, CATALOG, snapshot_every=EVERY)
    assert tables.snapshots.load(TABLE) is None
    assert tables.load(TABLE) == _replayed(store)


def test_snapshots_are_off_when_every_is_zero() -> None:
    store = InMemoryEventStore(codec.registry())
    app = TableApplication(store, InProcessDealer(), NullLedger(), LibraryRanker(), NoScheduler())
    app.tables.snapshots.every = 0
    config = TableConfig(game=TEXAS_HOLDEM, seats=6)
    app.create_table(TableSpec(config, table_id=TABLE), "house", "c")
    assert app.tables.snapshots.flush()
    assert store.load_snapshot(table_stream(TABLE), events_pb2.TableSnapshot) is None
