"""The table service's fan-out follower: its cost per append, and other instances' latency.

In process, on a private Redis: `tables` tables, one watcher each (a `TableFanout.listen`
that reads and drops), and a writer appending one event to the tables in turn at `rate`
appends/s and publishing it, as the table service does with its own appends. Rows:

* own: CPU of this process per append (utime+stime) minus the same writer's without any
  watcher, XREAD calls per append and events the follower decoded itself per append (the
  rest reached the hub by publish);
* foreign: a second store client (another instance) appends without publishing, 100/s over
  the tables, while this process appends at `rate` too: time from just before that append
  to the watcher's batch, p50/p99.

Each with the follower's SETTLE_MS/PAUSE_MS/MAX_PAUSE_MS as they are, and with all 0 (read
and decode whatever Redis wakes it for at once). `python -m bench --only fanout`; docs/table.md.
"""

from __future__ import annotations

import resource
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from bench.percentiles import percentile
from services.games.poker import events as ev
from services.shared.eventstore import RedisEventStore
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary
from services.table import codec, fanout
from services.table.application import table_stream

EVENTS = [ev.ActionTaken(seat=1, action="call", to=4, added=2)]
MESSAGES = [codec.to_message(e) for e in EVENTS]
FOREIGN_RATE = 100.0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class _Run:
    """Tables with one watcher each (or none), and this process's own writer."""

    def __init__(
        self, url: str, tables: int, watch: bool, settle_ms: float, pauses: tuple[float, float]
    ):
        self.client = redis.Redis.from_url(url, max_connections=tables + 20)
        self.xreads = 0
        xread = self.client.xread

        def counted(*args: object, **kwargs: object) -> object:
            self.xreads += 1
            return xread(*args, **kwargs)  # type: ignore[arg-type]

        self.client.xread = counted  # type: ignore[method-assign,assignment]
        self.store = RedisEventStore(self.client, codec.registry(), durability="everysec")
        self.decoded = 0

        def decode(message: object) -> object:
            self.decoded += 1
            return codec.from_message(message)  # type: ignore[arg-type]

        self.fanout = fanout.TableFanout(
            self.store,
            500,
            decode,
            settle_ms=settle_ms,
            pause_ms=pauses[0],
            max_pause_ms=pauses[1],
        )
        run = time.monotonic_ns()
        self.streams = [table_stream(f"f{run}-{i}") for i in range(tables)]
        self.versions = dict.fromkeys(self.streams, 0)
        self.lock = threading.Lock()  # one writer at a time: versions known before appending
        self.stop = threading.Event()
        self.sent: dict[tuple[str, int], float] = {}
        self.latencies: list[float] = []
        if watch:
            for stream in self.streams:
                threading.Thread(target=self._watch, args=(stream,), daemon=True).start()
            time.sleep(0.5)

    def _watch(self, stream: str) -> None:
        for batch in self.fanout.listen(stream, 1, self.stop):
            arrived = time.perf_counter()
            for entry in batch:
                sent = self.sent.pop((stream, entry.version), None)
                if sent is not None:
                    self.latencies.append((arrived - sent) * 1000)

    def append(self, n: int, store: RedisEventStore, publish: bool) -> None:
        stream = self.streams[n % len(self.streams)]
        with self.lock:
            version = self.versions[stream] + 1
            if not publish:
                self.sent[(stream, version)] = time.perf_counter()
            store.append(stream, MESSAGES, version - 1, f"k{version}")
            self.versions[stream] = version
            if publish:
                self.fanout.publish(stream, version, EVENTS, MESSAGES, 0)

    def write(self, rate: float, seconds: float, store: RedisEventStore, publish: bool) -> int:
        started, n = time.perf_counter(), 0
        while time.perf_counter() - started < seconds:
            self.append(n, store, publish)
            n += 1
            time.sleep(max(0.0, started + n / rate - time.perf_counter()))
        return n

    def close(self) -> None:
        self.stop.set()
        time.sleep(0.2)
        self.client.close()


@contextmanager
def _redis() -> Iterator[str]:
    binary = find_server_binary()
    if binary is None:
        raise RuntimeError("no redis-server/valkey-server found for the fan-out benchmark")
    server = EmbeddedRedis(binary).start()
    try:
        yield server.url
    finally:
        server.close()


def _own(
    url: str, tables: int, rate: float, seconds: float, settle: float, pauses: tuple[float, float]
):
    def cpu_per_append(watch: bool) -> tuple[float, _Run, int]:
        run = _Run(url, tables, watch, settle, pauses)
        before, xreads, decoded = _cpu(), run.xreads, run.decoded
        n = run.write(rate, seconds, run.store, publish=True)
        time.sleep(0.1)
        used = (_cpu() - before) / n * 1e6
        run.xreads, run.decoded = run.xreads - xreads, run.decoded - decoded
        run.close()
        return used, run, n

    alone, _, _ = cpu_per_append(False)
    used, run, n = cpu_per_append(True)
    return {
        "follower_cpu_us_per_append": round(used - alone),
        "xreads_per_append": round(run.xreads / n, 2),
        "follower_decodes_per_append": round(run.decoded / n, 2),
    }


def _foreign(
    url: str, tables: int, rate: float, seconds: float, settle: float, pauses: tuple[float, float]
):
    run = _Run(url, tables, True, settle, pauses)
    other = RedisEventStore(redis.Redis.from_url(url), codec.registry(), durability="everysec")
    own = threading.Thread(target=run.write, args=(rate, seconds, run.store, True), daemon=True)
    own.start()
    run.write(FOREIGN_RATE, seconds, other, publish=False)
    own.join()
    time.sleep(0.3)
    run.close()
    return {
        "foreign_p50_ms": round(statistics.median(run.latencies), 2),
        "foreign_p99_ms": round(percentile(run.latencies, 0.99), 2),
    }


def run(quick: bool) -> list[dict[str, object]]:
    seconds = 3.0 if quick else 8.0
    rows: list[dict[str, object]] = []
    with _redis() as url:
        for tables, rate in ((10, 400.0), (100, 1000.0)):
            for settle, pauses in (
                (0.0, (0.0, 0.0)),
                (fanout.SETTLE_MS, (fanout.PAUSE_MS, fanout.MAX_PAUSE_MS)),
            ):
                rows.append(
                    {
                        "tables": tables,
                        "own_appends_per_s": rate,
                        "settle_ms": settle,
                        "pause_ms": pauses[0],
                        "max_pause_ms": pauses[1],
                        **_own(url, tables, rate, seconds, settle, pauses),
                        **_foreign(url, tables, rate, seconds, settle, pauses),
                    }
                )
    return rows


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
