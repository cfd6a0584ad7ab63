"""Would a grpc.aio server cut the table service's CPU per call? The same handlers on a sync
grpc.server and on a grpc.aio server, side by side, each in its own process.

Server variants (each `python -m bench.bench_grpc_servers --serve VARIANT`, its CPU read from
/proc; the same message-size and port options as every croupier server, `server_options`):

* ``sync``: `grpc.server` with a ThreadPoolExecutor of MAX_WORKERS workers (bench_table runs
  the table service with as many: one WatchTable or Play stream holds one pool thread), no
  interceptors;
* ``sync+croupier``: exactly the services' server, `start_server` from
  services/shared/grpc_server.py (metrics, error and auth interceptors verifying the bearer
  token every call carries, health, reflection), same pool;
* ``aio``: `grpc.aio.server`, the same handlers written as coroutines, no interceptors;
* ``aio+to_thread``: the aio server whose handlers run their (trivial) body in
  `asyncio.to_thread`, as a port of only the servicer would run the table's synchronous
  application (redis-py, sync dealer channel): what the per-call thread hand-off costs back.

Workloads, driven by this process (one asyncio event loop, grpc.aio channels, one channel per
caller, as bench_table's client; every call carries the same bearer token, which only
``sync+croupier`` reads):

* ``unary``: `concurrency` closed-loop callers, each a 100-byte request answered by a 100-byte
  response;
* ``act+watch``: `concurrency` "tables", each with one server-streaming watcher. Each unary
  Act on a table makes the server push one 300-byte message on that table's stream (sync: the
  Act's thread bumps the table's version and notifies a threading.Condition the stream's pool
  thread waits on, as services/table/fanout.py's hub does; aio: an asyncio.Condition the
  stream's coroutine waits on), and the table's player sends its next Act only once that
  message has arrived (as a player waits for its turn).
* ``act+watch+work``: act+watch at 10 tables, each Act also running WORK_LOOPS of Python in
  its handler (~0.1 ms, about the table application's own cost per Act), so that the sync
  server's threads hold and hand over the GIL around real work as the table's do
  (``aio+to_thread``: in the worker thread).
* ``act+append+watch``: act+watch whose Act first appends APPENDED_EVENTS events (~EVENT_BYTES
  in all) to its table's stream through the table's own event store (RedisEventStore: the same
  Lua script, expected version and idempotency key) on a private Redis this benchmark starts
  (``aio``: the append blocks the loop, as the synchronous application would run inline;
  ``aio+to_thread``: in the worker thread). This is the plumbing every Act of the table needs
  and nothing else (no rules, dealer, ledger or decisions): its Acts/s divided by the table's
  ACTS_PER_HAND (floor_hands_per_s) is the most hands/s any table service built on this
  protocol (one unary Act, one append, one stream message per Act) can reach on this machine,
  the "ceiling of Python gRPC plus Redis" the issue's target is set against.
* ``stream-act+append+watch``: the same, but each table's player sends its Acts as messages on
  one long-lived bidirectional Play stream and the server answers each with one message on
  it (instead of a unary call per Act): what the plumbing floor would be if the table's API
  took Acts on a stream.

Each row: `warm_up_s` of load, then a measured window of `seconds`. Rows run in rounds; in
each round every workload runs against every variant, the variants' order reversed every
other round, so the machine's load hits them alike. Columns: calls_per_s (completed in the
window), server_cpu_us_per_call (utime+stime of the server process over the window / calls;
an act+watch call includes its stream message), stream_msg_us_est (act+watch rows: that minus
the same round's unary row of the same server at the same concurrency, i.e. what one stream
message with its wake-up costs), client_cpu_us_per_call (this process), floor_hands_per_s
(act+append+watch rows: Acts/s / ACTS_PER_HAND, see above), p50/p99 ms (unary: the
call; act+watch: Act sent -> its stream message received), load_1m at the window's start,
errors, work_us (act+watch+work rows: what that Python costs this process alone, CPU us per
Act; the row's server CPU includes it). After the rounds, one "median" row per variant and
workload (the median of each column over the rounds). `python -m bench --only grpc_servers`
(3 rounds of 6 s rows, ~7 min); docs/table.md "Would a grpc.aio server help?".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc

from bench.percentiles import percentile
from bench.service_process import cpu_seconds
from services.shared import auth
from services.shared.channels import channel_options
from services.shared.grpc_server import ServiceSpec, server_options, start_server
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary
from services.shared.settings import DEFAULT_MAX_MESSAGE_BYTES, RuntimeSettings

KEY = "bench-signing-key-0123456789abcdef-0123456789"
SERVICE = "croupier.bench.Load"
ECHO = f"/{SERVICE}/Echo"
ACT = f"/{SERVICE}/Act"
WATCH = f"/{SERVICE}/Watch"
PLAY = f"/{SERVICE}/Play"
VARIANTS = ("sync", "sync+croupier", "aio", "aio+to_thread")
# (workload, concurrency) per row of a round.
ROWS = (
    ("unary", 10),
    ("unary", 100),
    ("act+watch", 10),
    ("act+watch", 100),
    ("act+watch+work", 10),
    ("act+append+watch", 10),
    ("act+append+watch", 100),
    ("stream-act+append+watch", 10),
    ("stream-act+append+watch", 100),
)
# The table's mean Acts per six-handed no-limit hand (bench_table.ACTS_PER_HAND): turns the
# act+append+watch rows' Acts/s into the hands/s that plumbing alone would allow.
ACTS_PER_HAND = 17.0
# Events each Act of the act+append+watch rows appends in one call (an Act's append in the
# table holds the command's bookkeeping, the action and the next ActionRequested), each
# about EVENT_BYTES / APPENDED_EVENTS bytes.
APPENDED_EVENTS = 3
# Python work per Act in the act+watch+work rows: about what the table application costs per
# Act in process (bench_table_steps: ~1.8 ms a hand, ~16.5 Acts), so that the sync server's
# threads contend for the GIL with real work as the table's do.
WORK_LOOPS = 4000
# A sync server's stream holds a pool thread: the stream-act rows at 100 tables hold 200, and
# the threads of a finished row's streams can take seconds to come back (with 256, a unary row
# right after one completed no call at all).
MAX_WORKERS = 1024
# Requests start with the table's id in ID_DIGITS ASCII digits; stream messages with the
# table's version. Sizes as the table's: an Act and its reply ~100 bytes, a WatchTable
# message (one batched append) ~300.
ID_DIGITS = 8
REQUEST_BYTES = 100
RESPONSE = b"r" * 100
EVENT_BYTES = 300
# How long a sync stream's thread waits before checking whether its RPC ended (fanout.py's
# watchers wait `block_ms` = 500).
SYNC_WAIT_S = 0.5
CALL_TIMEOUT_S = 10.0


def request_for(table: int, work: bool = False, append: bool = False) -> bytes:
    """An Act of `table`; with `work`, the server does WORK_LOOPS of Python before answering;
    with `append`, it appends the Act's events to the table's stream first (`Appender`)."""
    flag = b"w" if work else b"a" if append else b"q"
    return str(table).zfill(ID_DIGITS).encode().ljust(REQUEST_BYTES, flag)


def table_of(request: bytes) -> int:
    return int(request[:ID_DIGITS])


def python_work(loops: int) -> int:
    total = 0
    for i in range(loops):
        total += i * i
    return total


def work_us() -> float:
    """What python_work(WORK_LOOPS) costs this process alone (CPU us, best of 5 x 200)."""
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        for _ in range(200):
            python_work(WORK_LOOPS)
        best = min(best, (time.process_time() - started) / 200 * 1e6)
    return best


class Appender:
    """The table's event-store append (services/shared/eventstore, the same Lua script and
    connection handling) of APPENDED_EVENTS events per Act, on the server's private Redis:
    one stream per table, each append after the version the previous one made, with its own
    idempotency key, as the table's command path does."""

    def __init__(self, redis_url: str) -> None:
        import redis

        from croupier.table.v1 import events_pb2
        from services.shared.eventstore import RedisEventStore
        from services.table import codec

        self._store = RedisEventStore(redis.Redis.from_url(redis_url), codec.registry())
        pad = "e" * (EVENT_BYTES // APPENDED_EVENTS)
        self._events = [
            events_pb2.CommandAccepted(key=pad, by="bench", events=APPENDED_EVENTS)
            for _ in range(APPENDED_EVENTS)
        ]
        self._versions: dict[int, int] = {}  # one Act in flight per table: no lock needed
        self._run = uuid.uuid4().hex[:8]  # a fresh stream per server process

    def append(self, table: int) -> None:
        version = self._versions.get(table, 0)
        self._store.append(
            f"{{bench-{self._run}-{table}}}:events",
            self._events,
            version,
            f"act-{version}",
        )
        self._versions[table] = version + APPENDED_EVENTS


def _respond(request: bytes, appender: Appender | None = None) -> bytes:
    """The handlers' body: the Act's work or append, if it asks for it, and the response."""
    flag = request[-1:]
    if flag == b"w":
        python_work(WORK_LOOPS)
    elif flag == b"a":
        if appender is None:
            raise RuntimeError("an appending Act needs the server started with --redis")
        appender.append(table_of(request))
    return RESPONSE


def event_for(version: int) -> bytes:
    return str(version).zfill(ID_DIGITS).encode().ljust(EVENT_BYTES, b"e")


def version_of(event: bytes) -> int:
    return int(event[:ID_DIGITS])


def _settings() -> RuntimeSettings:
    env = {
        "CROUPIER_AUTH_KEY": KEY,
        "CROUPIER_BENCH_METRICS_PORT": "0",
        "CROUPIER_MAX_WORKERS": str(MAX_WORKERS),
    }
    return RuntimeSettings.from_env("bench", 0, env=env)


# --- the servers (child processes) ---------------------------------------------------------


class _SyncTable:
    __slots__ = ("cond", "version")

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.version = 0


class SyncLoad:
    """The handlers on a sync server: pool threads, a threading.Condition per table."""

    def __init__(self, appender: Appender | None) -> None:
        self._tables: dict[int, _SyncTable] = {}
        self._lock = threading.Lock()
        self._appender = appender

    def _table(self, request: bytes) -> _SyncTable:
        key = table_of(request)
        table = self._tables.get(key)
        if table is None:
            with self._lock:
                table = self._tables.setdefault(key, _SyncTable())
        return table

    def echo(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        return _respond(request)

    def act(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        response = _respond(request, self._appender)
        table = self._table(request)
        with table.cond:
            table.version += 1
            table.cond.notify_all()
        return response

    def watch(self, request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        table = self._table(request)
        stop = threading.Event()

        def ended() -> None:
            stop.set()
            with table.cond:
                table.cond.notify_all()

        context.add_callback(ended)
        with table.cond:
            sent = table.version
        yield event_for(sent)  # the stream is live: the client starts acting
        while not stop.is_set():
            with table.cond:
                if table.version == sent:
                    table.cond.wait(SYNC_WAIT_S)
                    continue
                sent = table.version
            yield event_for(sent)

    def play(self, requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
        for request in requests:
            yield self.act(request, context)

    def register(self, server: grpc.Server) -> None:
        handler = grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Echo": grpc.unary_unary_rpc_method_handler(self.echo),
                "Act": grpc.unary_unary_rpc_method_handler(self.act),
                "Watch": grpc.unary_stream_rpc_method_handler(self.watch),
                "Play": grpc.stream_stream_rpc_method_handler(self.play),
            },
        )
        server.add_generic_rpc_handlers((handler,))


class _AioTable:
    __slots__ = ("cond", "version")

    def __init__(self) -> None:
        self.cond = asyncio.Condition()
        self.version = 0


class AioLoad:
    """The same handlers as coroutines: an asyncio.Condition per table. With `to_thread`,
    each unary handler runs its body in the loop's default executor and awaits it."""

    def __init__(self, to_thread: bool, appender: Appender | None) -> None:
        self._tables: dict[int, _AioTable] = {}
        self._to_thread = to_thread
        self._appender = appender

    def _table(self, request: bytes) -> _AioTable:
        key = table_of(request)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = _AioTable()
        return table

    async def _body(self, request: bytes) -> bytes:
        # (without to_thread an append blocks the loop for its round trip, as the table's
        # synchronous application would run inline on an aio server)
        if self._to_thread:
            return await asyncio.to_thread(_respond, request, self._appender)
        return _respond(request, self._appender)

    async def echo(self, request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        return await self._body(request)

    async def act(self, request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        response = await self._body(request)
        table = self._table(request)
        async with table.cond:
            table.version += 1
            table.cond.notify_all()
        return response

    async def watch(
        self, request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> AsyncIterator[bytes]:
        table = self._table(request)
        sent = table.version
        yield event_for(sent)
        while True:  # until the RPC ends: grpc.aio cancels this coroutine
            async with table.cond:
                while table.version == sent:
                    await table.cond.wait()
                sent = table.version
            yield event_for(sent)

    async def play(
        self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> AsyncIterator[bytes]:
        async for request in requests:
            yield await self.act(request, context)

    def handler(self) -> grpc.GenericRpcHandler:
        methods: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
            "Echo": grpc.unary_unary_rpc_method_handler(self.echo),
            "Act": grpc.unary_unary_rpc_method_handler(self.act),
            "Watch": grpc.unary_stream_rpc_method_handler(self.watch),
            "Play": grpc.stream_stream_rpc_method_handler(self.play),
        }
        return grpc.method_handlers_generic_handler(SERVICE, methods)


def _announce(port: int) -> None:
    """Tell the parent (reading our stdout) the port we listen on: we are ready."""
    print(port, flush=True)


def _serve_sync(croupier_stack: bool, appender: Appender | None) -> None:
    settings = _settings()
    load = SyncLoad(appender)
    if croupier_stack:
        running = start_server(ServiceSpec("bench", load.register, [SERVICE]), settings)
        server, port = running.server, running.port
    else:
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=settings.max_workers),
            options=server_options(settings),
        )
        load.register(server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
    _announce(port)
    server.wait_for_termination()


async def _serve_aio(to_thread: bool, appender: Appender | None) -> None:
    server = grpc.aio.server(options=server_options(_settings()))
    server.add_generic_rpc_handlers((AioLoad(to_thread, appender).handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    _announce(port)
    await server.wait_for_termination()


def _exit_with_parent() -> None:
    """End this server when the benchmark that started it is gone (its end of our stdin
    closes), even if it could not terminate us: a server left behind would load the
    machine for every later measurement."""
    sys.stdin.buffer.read()
    os._exit(0)


def serve(variant: str, redis_url: str | None = None) -> None:
    threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    appender = Appender(redis_url) if redis_url else None
    if variant in ("sync", "sync+croupier"):
        _serve_sync(variant == "sync+croupier", appender)
    elif variant in ("aio", "aio+to_thread"):
        asyncio.run(_serve_aio(variant == "aio+to_thread", appender))
    else:
        raise SystemExit(f"unknown variant {variant!r}; have {', '.join(VARIANTS)}")


class ServerProcess:
    """One server variant in its own process, listening on the port it printed."""

    def __init__(self, variant: str, redis_url: str) -> None:
        self.variant = variant
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.bench_grpc_servers",
                "--serve",
                variant,
                "--redis",
                redis_url,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.strip():
            self.close()
            raise RuntimeError(f"the {variant} server did not start")
        self.port = int(line)

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


# --- the client (this process) -------------------------------------------------------------


@dataclass
class Tally:
    """What the callers of one row did: (completed at, latency s) per call; errors. Callers
    run until `stopped`: cancelling a task that awaits a grpc.aio call does not reliably end
    it (the call's own task may take the cancellation and the caller then sees a CANCELLED
    status, or nothing), so they stop on the flag and are cancelled only if they hang."""

    done: list[tuple[float, float]] = field(default_factory=list)
    errors: int = 0
    stopped: bool = False


async def _caller(channel: grpc.aio.Channel, metadata: grpc.aio.Metadata, tally: Tally) -> None:
    echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(ECHO)
    request = request_for(0)
    while not tally.stopped:
        started = time.perf_counter()
        try:
            await echo(request, metadata=metadata, timeout=CALL_TIMEOUT_S)
        except grpc.aio.AioRpcError:
            tally.errors += 1
            await asyncio.sleep(0.01)
            continue
        ended = time.perf_counter()
        tally.done.append((ended, ended - started))


async def _table(
    n: int,
    channel: grpc.aio.Channel,
    metadata: grpc.aio.Metadata,
    tally: Tally,
    work: bool,
    append: bool,
    streamed: bool,
) -> None:
    """One table: its watcher's stream, and a player who Acts once the previous Act's
    message has arrived (`streamed`: each Act a message on the player's Play stream, answered
    by one on it, instead of a unary call)."""
    request = request_for(n, work, append)
    unary: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(ACT)
    watch: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(WATCH)
    plays: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(PLAY)
    play = plays(metadata=metadata) if streamed else None

    async def act() -> None:
        if play is None:
            await unary(request, metadata=metadata, timeout=CALL_TIMEOUT_S)
            return
        await play.write(request)
        if await asyncio.wait_for(play.read(), CALL_TIMEOUT_S) is grpc.aio.EOF:
            raise RuntimeError("the Play stream ended")

    stream = watch(request, metadata=metadata)
    arrived = asyncio.Event()
    latest = [0]  # the table's version as the stream last told it (read as a client would)

    async def read() -> None:
        async for message in stream:
            latest[0] = version_of(message)
            arrived.set()

    reader = asyncio.create_task(read())
    try:
        await arrived.wait()  # the stream is live
        while not tally.stopped:
            arrived.clear()
            started = time.perf_counter()
            try:
                await act()
            except (grpc.aio.AioRpcError, RuntimeError, TimeoutError):
                tally.errors += 1
                await asyncio.sleep(0.01)
                continue
            try:
                await asyncio.wait_for(arrived.wait(), CALL_TIMEOUT_S)
            except TimeoutError:  # the Act's message never came (or the stream ended)
                tally.errors += 1
                continue
            ended = time.perf_counter()
            tally.done.append((ended, ended - started))
    finally:
        stream.cancel()
        if play is not None:
            play.cancel()
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)


async def _stop(tally: Tally, tasks: list[asyncio.Task[None]]) -> None:
    """Let the callers finish their current call, then cancel any that has not."""
    tally.stopped = True
    await asyncio.wait(tasks, timeout=CALL_TIMEOUT_S)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _measure(
    server: ServerProcess,
    workload: str,
    concurrency: int,
    warm_up_s: float,
    seconds: float,
    metadata: grpc.aio.Metadata,
) -> dict[str, object]:
    options = channel_options(DEFAULT_MAX_MESSAGE_BYTES)
    target = f"127.0.0.1:{server.port}"
    channels = [grpc.aio.insecure_channel(target, options=options) for _ in range(concurrency)]
    tally = Tally()
    tasks = [
        asyncio.create_task(
            _caller(channel, metadata, tally)
            if workload == "unary"
            else _table(
                n,
                channel,
                metadata,
                tally,
                work=workload == "act+watch+work",
                append=workload.endswith("act+append+watch"),
                streamed=workload.startswith("stream-"),
            )
        )
        for n, channel in enumerate(channels)
    ]
    try:
        await asyncio.sleep(warm_up_s)
        load = os.getloadavg()[0]
        server_before, client_before = server.cpu(), cpu_seconds(os.getpid())
        started = time.perf_counter()
        await asyncio.sleep(seconds)
        ended = time.perf_counter()
        server_after, client_after = server.cpu(), cpu_seconds(os.getpid())
    finally:
        await _stop(tally, tasks)
        await asyncio.gather(*(channel.close() for channel in channels))
    latencies = [latency for at, latency in tally.done if started <= at <= ended]
    calls = len(latencies)
    elapsed = ended - started
    per_call = 1e6 / calls if calls else float("nan")
    return {
        "workload": workload,
        "concurrency": concurrency,
        "variant": server.variant,
        "seconds": round(elapsed, 1),
        "calls": calls,
        "calls_per_s": calls / elapsed,
        "server_cpu_us_per_call": (server_after - server_before) * per_call,
        "client_cpu_us_per_call": (client_after - client_before) * per_call,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "load_1m": round(load, 1),
        "errors": tally.errors,
    }


def _stream_costs(rows: list[dict[str, object]]) -> None:
    """Fill stream_msg_us_est of the act+watch rows from the unary row of the same round,
    server and concurrency (an Act is the unary call plus one stream message)."""
    unary = {
        (r["round"], r["variant"], r["concurrency"]): r["server_cpu_us_per_call"]
        for r in rows
        if r["workload"] == "unary"
    }
    for row in rows:
        row["stream_msg_us_est"] = "-"
        base = unary.get((row["round"], row["variant"], row["concurrency"]))
        if row["workload"] == "act+watch" and isinstance(base, float):
            cost = row["server_cpu_us_per_call"]
            assert isinstance(cost, float)
            row["stream_msg_us_est"] = cost - base


def _floor_hands(rows: list[dict[str, object]]) -> None:
    """Fill floor_hands_per_s of the act+append+watch rows: the hands/s this plumbing alone
    allows (calls_per_s / ACTS_PER_HAND); the real table adds its rules, dealer calls and the
    players' decisions on the same two cores."""
    for row in rows:
        rate = row["calls_per_s"]
        append = str(row["workload"]).endswith("act+append+watch") and isinstance(rate, float)
        row["floor_hands_per_s"] = rate / ACTS_PER_HAND if append else "-"  # type: ignore[operator]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


MEDIAN_COLUMNS = (
    "calls_per_s",
    "server_cpu_us_per_call",
    "stream_msg_us_est",
    "client_cpu_us_per_call",
    "floor_hands_per_s",
    "p50_ms",
    "p99_ms",
    "load_1m",
)


def _medians(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """One row per (workload, concurrency, variant): the median of each column over rounds."""
    groups: dict[tuple[object, object, object], list[dict[str, object]]] = {}
    for row in rows:
        groups.setdefault((row["workload"], row["concurrency"], row["variant"]), []).append(row)
    out = []
    for (workload, concurrency, variant), members in groups.items():
        median: dict[str, object] = {
            "round": "median",
            "workload": workload,
            "concurrency": concurrency,
            "variant": variant,
        }
        for column in MEDIAN_COLUMNS:
            values = [n for n in (_number(m[column]) for m in members) if n is not None]
            median[column] = statistics.median(values) if values else "-"
        median["calls"] = sum(m["calls"] for m in members)  # type: ignore[misc]
        median["errors"] = sum(m["errors"] for m in members)  # type: ignore[misc]
        out.append(median)
    return out


async def _rounds(
    variants: tuple[str, ...],
    rounds: int,
    warm_up_s: float,
    seconds: float,
    plan: tuple[tuple[str, int], ...] = ROWS,
) -> list[dict[str, object]]:
    token = auth.issue_token(KEY, "bench", auth.Role.SERVICE, 7200)
    # Built once: a tuple would be converted to grpc.aio.Metadata on every call.
    metadata = grpc.aio.Metadata(*auth.bearer_metadata(token))
    binary = find_server_binary()
    if binary is None:
        raise RuntimeError("no redis-server/valkey-server found for the append rows")
    redis_server = EmbeddedRedis(binary).start()  # private: the servers' appends only
    servers: list[ServerProcess] = []
    try:
        for variant in variants:
            servers.append(ServerProcess(variant, redis_server.url))
        rows = []
        for number in range(1, rounds + 1):
            order = servers if number % 2 else servers[::-1]
            for workload, concurrency in plan:
                for server in order:
                    row = await _measure(
                        server, workload, concurrency, warm_up_s, seconds, metadata
                    )
                    rows.append({"round": number, **row})
        _stream_costs(rows)
        _floor_hands(rows)
        rows += _medians(rows)
        work = work_us()  # (the work rows' server CPU includes this much Python per Act)
        for row in rows:
            row["work_us"] = work if row["workload"] == "act+watch+work" else "-"
        return rows
    finally:
        for server in servers:
            server.close()
        redis_server.close()


def measure(
    variants: tuple[str, ...] = VARIANTS,
    rounds: int = 2,
    warm_up_s: float = 1.0,
    seconds: float = 6.0,
    rows: tuple[tuple[str, int], ...] = ROWS,
) -> list[dict[str, object]]:
    """The rows (workload, concurrency) of `rows` against every variant, `rounds` times."""
    # One loop for every row: grpc.aio binds its poller to the loop it first ran on.
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(_rounds(variants, rounds, warm_up_s, seconds, rows))
    finally:
        loop.close()


def run(quick: bool) -> list[dict[str, object]]:
    if quick:
        return measure(rounds=1, warm_up_s=0.3, seconds=1.0)
    return measure(rounds=3, warm_up_s=1.0, seconds=6.0)


def main(argv: list[str] | None = None) -> None:
    """`python -m bench.bench_grpc_servers [--rounds R] [--seconds S] [--variant V ...]`:
    print the rows; `--serve VARIANT`: be one of the servers (the benchmark starts these)."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_grpc_servers")
    parser.add_argument("--serve", choices=VARIANTS, help="run this server variant")
    parser.add_argument("--redis", help="(with --serve) the Redis the append rows write to")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=6.0, help="measured window per row")
    parser.add_argument("--warm-up", type=float, default=1.0, help="seconds before the window")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="repeatable")
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve, args.redis)
        return
    variants = tuple(args.variant) if args.variant else VARIANTS
    for row in measure(variants, args.rounds, args.warm_up, args.seconds):
        print(row)


if __name__ == "__main__":
    main()
