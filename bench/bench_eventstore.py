"""Event store throughput and latency on a private Redis (and the in-memory twin as a floor).

Rows: single-event appends (Redis everysec, Redis strict/WAITAOF when a server supports it, a raw
XADD without the script as the Redis floor, in-memory), appends from 8 threads on separate
streams, full reads of a 1,000-event stream and 100-event reads from a version. Each row:
name, impl, ops, ops_per_s, p50_ms, p99_ms (per operation), server.
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis
from google.protobuf.wrappers_pb2 import StringValue

from bench.percentiles import percentile
from services.shared.eventstore import (
    Durability,
    EventRegistry,
    EventStore,
    InMemoryEventStore,
    RedisEventStore,
    stream_key,
)
from services.shared.redis_embedded import EmbeddedRedis, ServerBinary, find_server_binary
from services.shared.replica_ack import NO_WAIT, ReplicaAck

EVENT = StringValue(value="seat 3 raises to 120")  # a small event, like most table events


def _registry() -> EventRegistry:
    registry = EventRegistry()
    registry.register(StringValue)
    return registry


def _row(
    name: str, impl: str, server: str, latencies: list[float], wall_s: float
) -> dict[str, Any]:
    ordered = sorted(latencies)
    return {
        "name": name,
        "impl": impl,
        "server": server,
        "ops": len(ordered),
        "ops_per_s": round(len(ordered) / wall_s, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 3),
    }


def _timed(n: int, op: Callable[[int], object]) -> tuple[list[float], float]:
    latencies = []
    started = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter()
        op(i)
        latencies.append(time.perf_counter() - t0)
    return latencies, time.perf_counter() - started


def _appends(store: EventStore, n: int) -> tuple[list[float], float]:
    stream = stream_key("bench", uuid.uuid4().hex)
    return _timed(n, lambda i: store.append(stream, [EVENT], i, f"cmd-{i}"))


def _threaded_appends(
    url: str,
    threads: int,
    per_thread: int,
    durability: Durability = "everysec",
    replica_ack: ReplicaAck = NO_WAIT,
) -> tuple[list[float], float]:
    latencies: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(threads + 1)

    def work() -> None:
        store = RedisEventStore(
            redis.Redis.from_url(url), _registry(), durability=durability, replica_ack=replica_ack
        )
        barrier.wait()
        mine, _ = _appends(store, per_thread)
        with lock:
            latencies.extend(mine)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    barrier.wait()
    started = time.perf_counter()
    for worker in workers:
        worker.join()
    return latencies, time.perf_counter() - started


def _reads(store: EventStore, n: int, stream_len: int, from_version: int, limit: int | None):
    stream = stream_key("bench", uuid.uuid4().hex)
    for start in range(0, stream_len, 100):
        store.append(stream, [EVENT] * 100, start, f"fill-{start}")
    return _timed(n, lambda _: store.read(stream, from_version, limit))


def _redis_rows(binary: ServerBinary, n: int, reads: int, strict: bool) -> list[dict[str, Any]]:
    server = EmbeddedRedis(binary, own_session=False).start()
    label = f"{binary.flavour} {'.'.join(map(str, binary.version))}, AOF everysec"
    try:
        client = redis.Redis.from_url(server.url)
        rows = []
        store = RedisEventStore(client, _registry(), durability="everysec")
        rows.append(_row("append 1 event", "redis everysec", label, *_appends(store, n)))
        if strict:
            strict_store = RedisEventStore(client, _registry(), durability="strict")
            rows.append(_row("append 1 event", "redis strict", label, *_appends(strict_store, n)))
        raw_key = f"{{bench:{uuid.uuid4().hex}}}:raw"
        payload = EVENT.SerializeToString()
        raw = _timed(n, lambda _: client.xadd(raw_key, {"data": payload}))
        rows.append(_row("append 1 event", "raw XADD (no checks)", label, *raw))
        rows.append(
            _row(
                "append 1 event, 8 threads",
                "redis everysec",
                label,
                *_threaded_appends(server.url, 8, n // 8),
            )
        )
        if strict:
            # Concurrent writers share fsyncs (group commit), so strict costs less per append.
            threaded = _threaded_appends(server.url, 8, n // 8, "strict")
            rows.append(_row("append 1 event, 8 threads", "redis strict", label, *threaded))
        rows.append(_row("read 1000 events", "redis", label, *_reads(store, reads, 1000, 1, None)))
        rows.append(
            _row("read 100 from v900", "redis", label, *_reads(store, reads * 5, 1000, 900, 100))
        )
        client.close()
        return rows
    finally:
        server.close()


def run(quick: bool) -> list[dict[str, Any]]:
    n = 500 if quick else 5000
    reads = 20 if quick else 200
    rows: list[dict[str, Any]] = []
    binary = find_server_binary()
    if binary is not None:
        rows += _redis_rows(binary, n, reads, strict=binary.supports_waitaof)
        waitaof = find_server_binary(need_waitaof=True)
        if not binary.supports_waitaof and waitaof is not None:
            rows += [
                row
                for row in _redis_rows(waitaof, n, reads, strict=True)
                if row["name"].startswith("append") and row["impl"] != "raw XADD (no checks)"
            ]
    memory = InMemoryEventStore(_registry())
    rows.append(_row("append 1 event", "in-memory", "-", *_appends(memory, n)))
    rows.append(_row("read 1000 events", "in-memory", "-", *_reads(memory, reads, 1000, 1, None)))
    rows.append(
        _row("read 100 from v900", "in-memory", "-", *_reads(memory, reads * 5, 1000, 900, 100))
    )
    return rows


if __name__ == "__main__":
    for result in run(quick=True):
        print(result)
