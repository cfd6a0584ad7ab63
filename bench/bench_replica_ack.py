"""What waiting for a replica costs an append: a private Redis master with one replica on
this machine (loopback), the event store's appends with and without `ReplicaAck(1, ...)`
(CROUPIER_TABLE_WAIT_REPLICAS / CROUPIER_DEALER_WAIT_REPLICAS; the ledger's
CROUPIER_LEDGER_WAIT_REPLICAS is the same wait after its commit). Rows: one writer (the
sync store and the asyncio one, which the table's moves use), and 8 threads on separate
streams. Each row: name, impl, wait, ops, ops_per_s, p50_ms, p99_ms (per append).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import redis
import redis.asyncio as aioredis

from bench.bench_eventstore import EVENT, _registry, _row, _threaded_appends, _timed
from services.shared.eventstore import RedisEventStore, stream_key
from services.shared.eventstore.aio_redis_store import AsyncRedisEventStore
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary
from services.shared.replica_ack import NO_WAIT, ReplicaAck

WAIT = ReplicaAck(1, 500)


def _label(ack: ReplicaAck) -> str:
    return f"WAIT {ack.replicas} replica" if ack.replicas else "no wait"


def _sync_appends(url: str, ack: ReplicaAck, n: int) -> tuple[list[float], float]:
    client = redis.Redis.from_url(url)
    store = RedisEventStore(client, _registry(), durability="everysec", replica_ack=ack)
    stream = stream_key("bench", uuid.uuid4().hex)
    try:
        return _timed(n, lambda i: store.append(stream, [EVENT], i, f"cmd-{i}"))
    finally:
        client.close()


def _aio_appends(url: str, ack: ReplicaAck, n: int) -> tuple[list[float], float]:
    async def appends() -> tuple[list[float], float]:
        client = aioredis.Redis.from_url(url)
        store = AsyncRedisEventStore(client, _registry(), durability="everysec", replica_ack=ack)
        stream = stream_key("bench", uuid.uuid4().hex)
        latencies = []
        started = time.perf_counter()
        for i in range(n):
            t0 = time.perf_counter()
            await store.append(stream, [EVENT], i, f"cmd-{i}")
            latencies.append(time.perf_counter() - t0)
        wall = time.perf_counter() - started
        await store.close()
        await client.aclose()
        return latencies, wall

    return asyncio.run(appends())


def _replica_in_sync(replica: EmbeddedRedis, timeout_s: float = 20.0) -> None:
    client = redis.Redis(host=replica.host, port=replica.port)
    deadline = time.monotonic() + timeout_s
    try:
        while client.info("replication").get("master_link_status") != "up":
            if time.monotonic() > deadline:
                raise RuntimeError("the bench's replica did not connect to its master")
            time.sleep(0.05)
    finally:
        client.close()


def run(quick: bool) -> list[dict[str, Any]]:
    n = 500 if quick else 5000
    binary = find_server_binary()
    if binary is None:
        return []
    master = EmbeddedRedis(binary, own_session=False).start()
    replica = EmbeddedRedis(
        binary, own_session=False, extra_args=("--replicaof", master.host, str(master.port))
    ).start()
    label = f"{binary.flavour} {'.'.join(map(str, binary.version))}, master + 1 replica"
    rows: list[dict[str, Any]] = []
    try:
        _replica_in_sync(replica)
        for ack in (NO_WAIT, WAIT):
            for name, impl, measured in (
                ("append 1 event", "sync store", _sync_appends(master.url, ack, n)),
                ("append 1 event", "asyncio store", _aio_appends(master.url, ack, n)),
                (
                    "append 1 event, 8 threads",
                    "sync store",
                    _threaded_appends(master.url, 8, n // 8, replica_ack=ack),
                ),
            ):
                row = _row(name, impl, label, *measured)
                rows.append({**row, "wait": _label(ack)})
    finally:
        replica.close()
        master.close()
    return rows


if __name__ == "__main__":
    for result in run(quick=True):
        print(result)
