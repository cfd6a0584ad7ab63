"""A long table's cold load (a restart, a second instance): from its first event, and from its
latest snapshot plus the events after it.

The table: six-handed no-limit hold'em played by bench_table_steps' weighted random players
through `TableApplication.act` (in memory), its stream then copied to a private Redis. Rows:
the time (wall and CPU of this process) of `Tables.load` on a fresh `Tables` (nothing cached)
with snapshots off (every event read from Redis and folded) and from the snapshot the table
saved last (its snapshot read and decoded, the events after it read and folded), and the
time to encode and save one snapshot (what the background writer spends every
`SNAPSHOT_EVERY` events).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import redis

from bench.bench_table_steps import weighted_act
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared.eventstore import InMemoryEventStore, RedisEventStore
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary
from services.table import codec, snapshots
from services.table.application import TableApplication, TableSpec
from services.table.attention import InMemoryAttentionSet
from services.table.folding import fold_recorded, table_stream
from services.table.games.catalog import CATALOG
from services.table.ports import NoScheduler
from services.table.tables import Tables
from tests.fixtures.table_ports import InProcessDealer, NullLedger

TABLE = "long"


def _long_table(acts: int) -> InMemoryEventStore:
    store = InMemoryEventStore(codec.registry())
    app = TableApplication(store, InProcessDealer(), NullLedger(), LibraryRanker(), NoScheduler())
    app.tables.snapshots.every = 0  # (the copy below saves the one the row reads)
    config = TableConfig(game=TEXAS_HOLDEM, seats=6)
    app.create_table(TableSpec(config, table_id=TABLE, min_players_to_start=6), "house", "c")
    for seat in range(6):
        app.join(TABLE, f"p{seat}", seat, 10**9, "", f"join-{seat}")
    rng = random.Random(1)
    for n in range(acts):
        player, act = weighted_act(app.current(TABLE).state.engine, rng)
        app.act(TABLE, player, act, f"act-{n}", None)
    return store


def _timed(repeats: int, work: Callable[[], object]) -> tuple[float, float]:
    """Median wall and CPU milliseconds of `work`."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def _rows(store: RedisEventStore, events: int, repeats: int) -> list[dict[str, Any]]:
    stream = table_stream(TABLE)

    def cold(every: int) -> Callable[[], object]:
        def load() -> object:
            tables = Tables(store, InMemoryAttentionSet(), 5.0, lambda: 0, CATALOG, every)
            return tables.load(TABLE)

        return load

    full = cold(0)()
    # The last snapshot the background writer would have saved: SNAPSHOT_EVERY events apart,
    # so on average half of them follow it.
    every = snapshots.SNAPSHOT_EVERY
    at = events - every // 2
    table_at = fold_recorded(TABLE, store.read(stream, 1, at), catalog=CATALOG)
    encoded = snapshots.encode(table_at)

    def save() -> None:
        store.save_snapshot(stream, at, snapshots.encode(table_at), snapshots.SCHEMA_VERSION)

    save_wall, save_cpu = _timed(repeats, save)
    assert cold(every)() == full
    rows = []
    for name, work in (
        ("cold load, every event", cold(0)),
        (f"cold load, snapshot + {events - at} events", cold(every)),
    ):
        wall, cpu = _timed(repeats, work)
        rows.append({"name": name, "events": events, "wall_ms": wall, "cpu_ms": cpu})
    rows.append(
        {
            "name": "encode + save one snapshot",
            "events": events,
            "wall_ms": save_wall,
            "cpu_ms": save_cpu,
            "snapshot_bytes": encoded.ByteSize(),
        }
    )
    return rows


def run(quick: bool) -> list[dict[str, Any]]:
    acts = 3000 if quick else 15000
    memory = _long_table(acts)
    recorded = memory.read(table_stream(TABLE))
    binary = find_server_binary()
    if binary is None:
        raise RuntimeError("no redis-server binary: the cold-load rows read a real Redis")
    server = EmbeddedRedis(binary, own_session=False).start()
    try:
        store = RedisEventStore(redis.Redis.from_url(server.url), codec.registry())
        stream = table_stream(TABLE)
        for first in range(0, len(recorded), 200):
            batch = [r.message for r in recorded[first : first + 200]]
            store.append(stream, batch, first, f"copy-{first}")
        return _rows(store, len(recorded), 3 if quick else 5)
    finally:
        server.stop()


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
