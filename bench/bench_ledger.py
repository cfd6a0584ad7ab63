"""Ledger transfers/s and latency: through gRPC (1 and 16 clients), and at the store level the
two ways to serialise commits side by side.

gRPC rows run the real service (`python -m services.ledger`, its own process) on a private
Redis (AOF everysec) and drive two-leg transfers among 8 funded player accounts from client
threads of this process. Store rows call the application in-process (no gRPC) with:

* `lua checked`  : the shipped design: one Lua script re-checks funds/reservations and appends
                   journal + projection + stored response atomically; no version check.
* `lua serial`   : the same script but requiring the journal version the caller loaded (every
                   commit serialised on one global version; CROUPIER_LEDGER_CONCURRENCY=serial).
* `eventstore`   : pure event sourcing through services.shared.eventstore: one global journal
                   stream, state folded in memory per client, `append(expected_version)`; on a
                   Conflict catch up and decide again. No Redis projection at all (updating one
                   would need a second, non-atomic write).

Each row: name, impl, clients, ops, ops_per_s, p50_ms, p99_ms, retries (store rows), and for
gRPC rows ledger_cpu_ms_per_op: the ledger process's CPU (utime + stime from /proc) per op.

The "buy-in (gRPC)" row is what the full-stack table benchmark asks of the ledger when it
seats a player (before any hand is played): OpenAccount, Deposit, then the table's Reserve and
Post of the buy-in; one op is the four calls.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable

import grpc
import redis

from bench.percentiles import percentile
from bench.service_process import cpu_seconds, start_service
from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger import codec
from services.ledger.application import LedgerApplication
from services.ledger.core.accounts import AccountKind
from services.ledger.core.commands import Deposit, OpenAccount, Transfer
from services.ledger.core.decide import decide
from services.ledger.core.entries import credit, debit
from services.ledger.core.shards import shard_of
from services.ledger.core.state import LedgerState, apply_all
from services.ledger.redis_store import RedisLedgerStore, ledger_registry
from services.ledger.server import shard_namespace
from services.ledger.store import Concurrency
from services.shared import auth
from services.shared.channels import connect
from services.shared.errors import Conflict
from services.shared.eventstore import RedisEventStore, stream_key
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary, free_port
from tests.fixtures.redis_cluster import start_local_cluster

KEY = "bench-ledger-signing-key-0123456789abcdef"
ACCOUNTS = [f"player:b{n}:CHIP" for n in range(8)]
SERVICE = auth.Principal("bench", auth.Role.SERVICE)
FUNDS = 10**12


def _row(name: str, impl: str, clients: int, latencies: list[float], wall_s: float, **extra):
    ordered = sorted(latencies)
    return {
        "name": name,
        "impl": impl,
        "clients": clients,
        "ops": len(ordered),
        "ops_per_s": round(len(ordered) / wall_s, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 3),
        **extra,
    }


def _drive(total: int, ops: list[Callable[[int], object]]) -> tuple[list[float], float]:
    """Run `total` ops split over one thread per op; return (latencies, wall seconds)."""
    clients = len(ops)
    latencies: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def work(client: int) -> None:
        mine = []
        barrier.wait()
        for i in range(total // clients):
            t0 = time.perf_counter()
            ops[client](i)
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - started


def _pb_legs(rng: random.Random) -> list[ledger_pb2.Leg]:
    source, target = rng.sample(ACCOUNTS, 2)
    amount = rng.randint(1, 100)
    return [
        ledger_pb2.Leg(
            account_id=source,
            side=ledger_pb2.LEG_SIDE_DEBIT,
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=amount),
        ),
        ledger_pb2.Leg(
            account_id=target,
            side=ledger_pb2.LEG_SIDE_CREDIT,
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=amount),
        ),
    ]


def _fund(app: LedgerApplication) -> None:
    for account_id in ACCOUNTS:
        name = account_id.split(":")[1]
        app.open_account(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=name, currency="CHIP"
            ),
            SERVICE,
        )
        app.deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=f"fund/{name}",
                account_id=account_id,
                amount=chips_pb2.ChipAmount(currency="CHIP", amount=FUNDS),
            ),
            SERVICE,
        )


class _CountingStore(RedisLedgerStore):
    """Counts commits refused as stale (each one is a retry of the application)."""

    retries = 0

    def commit(self, commit):
        result = super().commit(commit)
        if type(result).__name__ == "Stale":
            _CountingStore.retries += 1
        return result


def _lua_rows(url: str, mode: Concurrency, total: int) -> list[dict[str, object]]:
    rows = []
    for clients in (1, 16):
        client = redis.Redis.from_url(url)
        store = _CountingStore(client, namespace=f"bench-{uuid.uuid4().hex[:8]}")
        app = LedgerApplication(store, concurrency=mode, max_attempts=10_000)
        _fund(app)
        _CountingStore.retries = 0

        def make_op(c: int, app: LedgerApplication = app) -> Callable[[int], object]:
            rng = random.Random(c)
            return lambda i: app.transfer(
                ledger_pb2.TransferRequest(idempotency_key=f"{c}/{i}", legs=_pb_legs(rng)),
                SERVICE,
            )

        latencies, wall = _drive(total, [make_op(c) for c in range(clients)])
        rows.append(
            _row(
                "transfer (store)",
                f"lua {mode.value}",
                clients,
                latencies,
                wall,
                retries=_CountingStore.retries,
            )
        )
        client.close()
    return rows


class _EventSourcedClient:
    """One client of the pure event-sourced peer: state folded in memory from the stream."""

    def __init__(self, events: RedisEventStore, stream: str, seed: int) -> None:
        self.events, self.stream = events, stream
        self.rng = random.Random(seed)
        self.state = LedgerState()
        self.version = 0
        self.conflicts = 0
        self.seed = seed

    def _catch_up(self) -> None:
        recorded = self.events.read(self.stream, self.version + 1)
        self.state = apply_all(self.state, [codec.event_from_pb(r.message) for r in recorded])
        self.version += len(recorded)

    def transfer(self, i: int) -> None:
        source, target = self.rng.sample(ACCOUNTS, 2)
        amount = self.rng.randint(1, 100)
        legs = (debit(source, "CHIP", amount), credit(target, "CHIP", amount))
        command = Transfer(f"{self.seed}/{i}", legs)
        while True:
            self._catch_up()
            decided = [codec.event_to_pb(e) for e in decide(self.state, command)]
            try:
                self.events.append(self.stream, decided, self.version, command.key)
                return
            except Conflict:
                self.conflicts += 1


def _eventstore_rows(url: str, total: int) -> list[dict[str, object]]:
    rows = []
    for clients in (1, 16):
        client = redis.Redis.from_url(url)
        events = RedisEventStore(client, ledger_registry(), durability="everysec")
        stream = stream_key("ledger", f"es-{uuid.uuid4().hex[:8]}")
        state = LedgerState()
        seed = []  # open and fund the accounts in the same stream
        for account_id in ACCOUNTS:
            for command in (
                OpenAccount(AccountKind.PLAYER, account_id.split(":")[1], "CHIP"),
                Deposit(f"fund/{account_id}", account_id, "CHIP", FUNDS),
            ):
                decided = decide(state, command)
                state = apply_all(state, decided)
                seed += decided
        events.append(stream, [codec.event_to_pb(e) for e in seed], 0, "seed")
        peers = [_EventSourcedClient(events, stream, c) for c in range(clients)]
        latencies, wall = _drive(total, [peer.transfer for peer in peers])
        rows.append(
            _row(
                "transfer (store)",
                "eventstore expected-version",
                clients,
                latencies,
                wall,
                retries=sum(p.conflicts for p in peers),
            )
        )
        client.close()
    return rows


def _serve(url: str, namespace: str, mode: Concurrency) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {
        **os.environ,
        "CROUPIER_AUTH_KEY": KEY,
        "CROUPIER_LEDGER_ADDR": f"127.0.0.1:{port}",
        "CROUPIER_LEDGER_METRICS_PORT": "0",
        "CROUPIER_LEDGER_REDIS_URL": url,
        "CROUPIER_LEDGER_NAMESPACE": namespace,
        "CROUPIER_LEDGER_CONCURRENCY": mode.value,
        "CROUPIER_LOG_LEVEL": "warning",
    }
    return start_service("ledger", port, env), port


def _grpc_client(channel: grpc.Channel, c: int) -> Callable[[int], object]:
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    rng = random.Random(c)
    return lambda i: stub.Transfer(
        ledger_pb2.TransferRequest(idempotency_key=f"{c}/{i}", legs=_pb_legs(rng)), timeout=30
    )


def _buy_in_client(channel: grpc.Channel, c: int) -> Callable[[int], object]:
    """One op: a new player opens an account, deposits, and buys in at table `c`."""
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    prefix = uuid.uuid4().hex[:8]
    table = f"table:bench-{prefix}:CHIP"
    stub.OpenAccount(
        ledger_pb2.OpenAccountRequest(
            kind=ledger_pb2.ACCOUNT_KIND_TABLE, name=f"bench-{prefix}", currency="CHIP"
        )
    )

    def chips(amount: int) -> chips_pb2.ChipAmount:
        return chips_pb2.ChipAmount(currency="CHIP", amount=amount)

    def buy_in(i: int) -> None:
        player = f"{prefix}-p{i}"
        account = f"player:{player}:CHIP"
        stub.OpenAccount(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency="CHIP"
            )
        )
        stub.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=f"fund-{player}", account_id=account, amount=chips(1000)
            )
        )
        legs = [
            ledger_pb2.Leg(account_id=account, side=ledger_pb2.LEG_SIDE_DEBIT, amount=chips(500)),
            ledger_pb2.Leg(account_id=table, side=ledger_pb2.LEG_SIDE_CREDIT, amount=chips(500)),
        ]
        reserved = stub.Reserve(
            ledger_pb2.ReserveRequest(idempotency_key=f"{player}/buy-in", legs=legs)
        )
        stub.Post(
            ledger_pb2.PostRequest(
                idempotency_key=f"{player}/post", reservation_id=reserved.reservation_id
            )
        )

    return buy_in


def _grpc_rows(
    url: str,
    mode: Concurrency,
    client_counts: tuple[int, ...],
    total: int,
    name: str = "transfer (gRPC)",
    make_client: Callable[[grpc.Channel, int], Callable[[int], object]] = _grpc_client,
):
    rows = []
    for clients in client_counts:
        namespace = f"bench-grpc-{uuid.uuid4().hex[:8]}"
        _fund(LedgerApplication(RedisLedgerStore(redis.Redis.from_url(url), namespace=namespace)))
        process, port = _serve(url, namespace, mode)
        token = auth.issue_token(KEY, "bench", auth.Role.SERVICE, 3600)
        channels = [connect(f"127.0.0.1:{port}", token) for _ in range(clients)]
        try:
            ops = [make_client(ch, c) for c, ch in enumerate(channels)]
            cpu_before = cpu_seconds(process.pid)
            latencies, wall = _drive(total, ops)
            cpu_ms = (cpu_seconds(process.pid) - cpu_before) * 1000
            rows.append(
                _row(
                    name,
                    f"lua {mode.value}",
                    clients,
                    latencies,
                    wall,
                    ledger_cpu_ms_per_op=round(cpu_ms / len(latencies), 3),
                )
            )
        finally:
            for channel in channels:
                channel.close()
            process.terminate()
            process.wait(timeout=10)
    return rows


# -- shards ------------------------------------------------------------------------------


def _shard_rows(
    label: str, env: dict[str, str], client: object, shards: int, total: int, clients: int
) -> dict[str, object]:
    """One row: `clients` gRPC clients sending two-leg transfers among the 8 accounts to a
    ledger of `shards` shards (with 8 shards most transfers cross two shards)."""
    namespace = f"bench-shards-{uuid.uuid4().hex[:8]}"
    stores = [
        RedisLedgerStore(client, namespace=shard_namespace(namespace, n, shards), shard=n)  # type: ignore[arg-type]
        for n in range(shards)
    ]
    _fund(LedgerApplication(stores))
    port = free_port()
    process = start_service(
        "ledger",
        port,
        {
            **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)},
            **env,
            "CROUPIER_AUTH_KEY": KEY,
            "CROUPIER_LEDGER_ADDR": f"127.0.0.1:{port}",
            "CROUPIER_LEDGER_METRICS_PORT": "0",
            "CROUPIER_LEDGER_NAMESPACE": namespace,
            "CROUPIER_LEDGER_SHARDS": str(shards),
            "CROUPIER_LOG_LEVEL": "warning",
        },
    )
    token = auth.issue_token(KEY, "bench", auth.Role.SERVICE, 3600)
    channels = [connect(f"127.0.0.1:{port}", token) for _ in range(clients)]
    try:
        ops = [_grpc_client(ch, c) for c, ch in enumerate(channels)]
        cpu_before = cpu_seconds(process.pid)
        latencies, wall = _drive(total, ops)
        cpu_ms = (cpu_seconds(process.pid) - cpu_before) * 1000
        crossing = sum(
            1
            for a in ACCOUNTS
            for b in ACCOUNTS
            if a != b and shard_of(a, shards) != shard_of(b, shards)
        ) / (len(ACCOUNTS) * (len(ACCOUNTS) - 1))
        row: dict[str, object] = _row(
            "transfer (gRPC)",
            f"{label}, {shards} shard{'s' if shards > 1 else ''}",
            clients,
            latencies,
            wall,
            crossing_share=round(crossing, 2),
            ledger_cpu_ms_per_op=round(cpu_ms / len(latencies), 3),
        )
        return row
    finally:
        for channel in channels:
            channel.close()
        process.terminate()
        process.wait(timeout=10)


def shard_rows(total: int, shard_counts: tuple[int, ...] = (1, 8)) -> list[dict[str, object]]:
    """Transfers/s of one ledger process with 1 and 8 shards, on one Redis and on a
    3-master Redis Cluster on loopback, side by side (16 clients each)."""
    binary = find_server_binary()
    if binary is None:
        raise RuntimeError("no redis-server/valkey-server found for the ledger benchmark")
    rows: list[dict[str, object]] = []
    server = EmbeddedRedis(binary).start()
    try:
        single = redis.Redis.from_url(server.url)
        for shards in shard_counts:
            env = {"CROUPIER_LEDGER_REDIS_URL": server.url}
            rows.append(_shard_rows("single redis", env, single, shards, total, 16))
        single.close()
    finally:
        server.close()
    cluster = start_local_cluster(masters=3)
    try:
        client = cluster.client()
        for shards in shard_counts:
            env = {"REDIS_CLUSTER_NODES": cluster.seed_nodes}
            rows.append(_shard_rows("cluster 3 masters", env, client, shards, total, 16))
        client.close()
    finally:
        cluster.close()
    return rows


def run(quick: bool) -> list[dict[str, object]]:
    total = 320 if quick else 3200
    binary = find_server_binary()
    if binary is None:
        raise RuntimeError("no redis-server/valkey-server found for the ledger benchmark")
    server = EmbeddedRedis(binary).start()
    try:
        rows: list[dict[str, object]] = []
        rows += _grpc_rows(server.url, Concurrency.CHECKED, (1, 16), total)
        rows += _grpc_rows(server.url, Concurrency.SERIAL, (16,), total)
        rows += _grpc_rows(
            server.url, Concurrency.CHECKED, (10,), total // 4, "buy-in (gRPC)", _buy_in_client
        )
        rows += _lua_rows(server.url, Concurrency.CHECKED, total)
        rows += _lua_rows(server.url, Concurrency.SERIAL, total)
        rows += _eventstore_rows(server.url, total)
        return rows
    finally:
        server.close()


if __name__ == "__main__":
    if "--shards" in sys.argv:
        # Sharding side by side: python -m bench.bench_ledger --shards [--full]
        results = shard_rows(3200 if "--full" in sys.argv else 960)
    else:
        results = run(quick="--full" not in sys.argv)
    for result in results:
        print(result)
