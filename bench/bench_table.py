"""Full-stack table benchmark: six-handed no-limit hold'em hands/s and Act->event latency.

The real services run as their own processes (`python -m services.dealer|ledger|table`) on a
private Redis (AOF everysec). This process is the players: every table has six seated
players, each with its own gRPC channel and token (the server verifies each player's token on
every call, so each acts as itself), and a spectator whose WatchTable stream (batched:
several events a message) announces each turn (ActionRequested). The player whose turn it
is answers with one Act, decided from the legal actions the request carries (as a bot would
play; GetTableView only when the stream started mid-decision): a random legal action weighted
FACING / UNOPENED, bets at the minimum, never all in, so the deep stacks never bust and every
table keeps playing. The spectator's
stream timestamps every event it receives.

The client is one asyncio event loop with grpc.aio channels (no thread per table or stream),
so that its CPU per hand is small next to the services' and the rows measure the services
rather than the benchmark; its CPU is its own column, and a probe reports how late its event
loop ran (a client stall shows there, not as the services' latency).

Every row sets up its tables (not measured), starts the spectators' streams, then the
players, and measures a window of `seconds` that starts once every table has finished a hand
(the tables start their first hands together; after one hand of random length they are out
of step, as in a room that has been playing a while).

Two kinds of rows:

* saturated (`players` = "saturated"): closed loop, a player acts as soon as its turn
  arrives. Every table always has a decision outstanding, so the stack runs flat out:
  hands_per_s is its throughput ceiling. The latency of these rows is queueing by
  construction (Little's law: ~`tables` outstanding Acts / acts_per_s), not the services'
  response time at a given load.
* paced (`players` = "paced"): the room offers a stated load, offered_hands_per_s, as Acts:
  offered_hands_per_s * ACTS_PER_HAND Acts/s over all tables (ACTS_PER_HAND = 17, the mean
  of this action mix: 16.7-17.3 measured at 1 and 10 tables). Each table offers its share on
  a fixed `Schedule`: its k-th Act is due at the players' start + the sum of k think times,
  exponential with mean `tables` / (offered Acts/s), seeded per table (every run draws the
  same ones). A player acts at its due time, or as soon as its turn arrives when that is
  later (the stack fell behind the schedule; late_acts_pct counts these). While the stack
  keeps up, the room offers exactly the stated rate whatever the response time, and
  hands_per_s is what it achieved. The rows: 100 tables offering the issue's target (150
  hands/s: its latency target is p99 under 10 ms at 100 tables at that rate), a tenth and a
  fifth of it (15 and 30 hands/s; fixed before measuring), and the target again against two
  table instances.

Streamed rows (`--stream`; acts_over = "stream"): each player sends its Acts as messages on
its own bidirectional Play stream (opened at its first Act, answered in order on it) instead
of one Act call each; everything else is the same. The full run has them at 10 and 100
tables saturated and at 100 tables offering the target.

`--cluster` (one row): the services' state on a 3-master Redis Cluster on loopback
(REDIS_CLUSTER_NODES; tests/fixtures/redis_cluster.py) instead of the one Redis.

Columns: table_instances (table-service processes; tables are sharded over them, table n on
instance n % instances), redis (single or the cluster), tables, watchers_per_table (1: the
spectator; 7: the six players keep their own streams open too, as real clients do), players,
acts_over (call or stream), offered_hands_per_s ("-" when saturated), seconds (the window),
hands (finished by all tables in the window), hands_per_s, acts (Acts answered in the window),
acts_per_s, acts_per_hand, act_to_event p50/p99/mean in ms over the window's Acts (Act sent ->
the event at the version the Act returned arrives on the spectator's stream; client-side delays
included), client_lag_p99_ms (how late the client's event loop ran a 10 ms timer, 99th
percentile over the window), late_acts_pct (paced rows: the share of the window's Acts sent
after their due time), cpu_ms_per_hand_table / _client / _all (utime+stime from /proc during the
window, per finished hand: the table instances, this client process, every process of the
stack), act_rpc_p50/p99_ms (Act sent -> its answer), table_process_core_pct_max /
redis_process_core_pct_max (the busiest table process / Redis node, % of one core over the
window), machine_busy_cores (the whole machine's busy CPU over the window, other users'
processes included), load_1m (the machine's load average as the window started), errors
(failed Acts and views)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import secrets
import statistics
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc

from bench.percentiles import percentile
from bench.service_process import cpu_seconds, free_port, start_service
from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.channels import channel_options
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary
from services.shared.settings import DEFAULT_MAX_MESSAGE_BYTES
from tests.fixtures.redis_cluster import start_local_cluster

if TYPE_CHECKING:  # the async stub types exist only in the generated .pyi
    from croupier.ledger.v1.ledger_pb2_grpc import LedgerServiceAsyncStub

KEY = "bench-table-signing-key-0123456789abcdef"
SEATS = 6
A = table_pb2
# Action weights of the random players: facing a bet most fold or call and few raise; with
# nothing to call most check. (Uniform choice made ~31 actions a hand, raise wars included;
# this mix makes ~17, closer to real six-handed play. Bets are at the minimum, never all in,
# so the deep stacks never bust and every table keeps playing.)
FACING: dict[int, int] = {A.ACTION_FOLD: 45, A.ACTION_CALL: 45, A.ACTION_RAISE: 10}
UNOPENED: dict[int, int] = {A.ACTION_CHECK: 75, A.ACTION_BET: 25}
# The issue's throughput target, and the mean Acts per hand of the mix above (measured at 1
# and 10 tables: 16.7-17.3), which turns an offered hands/s into the Acts/s the players send.
TARGET_HANDS_PER_S = 150.0
ACTS_PER_HAND = 17.0
# Offered loads of the paced rows: a tenth, a fifth and all of the target (fixed before
# measuring, not fitted to what the services reach).
PACED_HANDS_PER_S = (TARGET_HANDS_PER_S / 10, TARGET_HANDS_PER_S / 5, TARGET_HANDS_PER_S)
PACED_TABLES = 100
# The window starts once every table has finished a hand (see _warm_up), at most this late.
WARM_UP_LIMIT = 30.0
LAG_PROBE_S = 0.01
# Tables set up at once (setup is not measured; this only bounds the burst on the services).
SETUP_CONCURRENCY = 10
# Rows with idle streams (`idle_streams`): WatchTable streams held open on this many quiet
# tables, this many streams per client channel, all open (first message in) within this long.
QUIET_TABLES = 10
STREAMS_PER_CHANNEL = 100
IDLE_STREAMS_OPEN_WITHIN_S = 120.0


class Stack:
    """Redis + dealer + ledger + `instances` table services as processes. With several table
    instances, tables are sharded: table n is created on, played and watched through instance
    n % instances (all share one Redis, dealer and ledger)."""

    def __init__(
        self,
        instances: int = 1,
        max_workers: int = 1024,
        runtime: str = "aio",
        table_env: dict[str, str] | None = None,
        cluster: bool = False,
    ) -> None:
        binary = find_server_binary()
        if binary is None:
            raise RuntimeError("no redis-server/valkey-server found for the table benchmark")
        # `cluster`: the services' state on a 3-master Redis Cluster on loopback
        # (REDIS_CLUSTER_NODES) instead of the one Redis.
        self.cluster = start_local_cluster(masters=3) if cluster else None
        self.redis = EmbeddedRedis(binary).start()
        self.instances = instances
        self.ports = {name: free_port() for name in ("dealer", "ledger")}
        self.table_ports = [free_port() for _ in range(instances)]
        env = {
            **os.environ,
            "CROUPIER_AUTH_KEY": KEY,
            "REDIS_URL": self.redis.url,
            **({"REDIS_CLUSTER_NODES": self.cluster.seed_nodes} if self.cluster else {}),
            "CROUPIER_LOG_LEVEL": "warning",
            "CROUPIER_DEALER_KEY": secrets.token_hex(32),
            # Each stream holds a thread of the sync server: at 100 tables, 100 spectators'
            # WatchTable streams and, in the streamed rows, 600 players' Play streams.
            "CROUPIER_MAX_WORKERS": str(max_workers),
            # The table's server: grpc.aio (the default) or the sync grpc.server.
            "CROUPIER_TABLE_RUNTIME": runtime,
            **(table_env or {}),  # (a benchmark's own table settings)
        }
        for name, port in self.ports.items():
            env[f"CROUPIER_{name.upper()}_ADDR"] = f"127.0.0.1:{port}"
            env[f"CROUPIER_{name.upper()}_TARGET"] = f"127.0.0.1:{port}"
            env[f"CROUPIER_{name.upper()}_METRICS_PORT"] = "0"
        env["CROUPIER_TABLE_METRICS_PORT"] = "0"
        env["CROUPIER_EVALUATOR_TARGET"] = "127.0.0.1:1"  # the table ranks in process
        self.processes: list[subprocess.Popen[bytes]] = []
        # CPU is accounted per role: every table instance counts as "table".
        self.roles: list[tuple[str, int]] = []
        try:
            for name in ("dealer", "ledger"):
                self._start(name, self.ports[name], env)
            for port in self.table_ports:
                self._start("table", port, {**env, "CROUPIER_TABLE_ADDR": f"127.0.0.1:{port}"})
        except BaseException:
            self.close()  # do not leave the services that did start running
            raise
        redis_nodes = self.cluster.nodes if self.cluster else [self.redis]
        for node in redis_nodes:
            if node.pid is not None:
                self.roles.append(("redis", node.pid))
        self.roles.append(("client", os.getpid()))

    def _start(self, name: str, port: int, env: dict[str, str]) -> None:
        process = start_service(name, port, env)
        self.processes.append(process)
        self.roles.append((name, process.pid))

    def cpu_by_process(self) -> list[tuple[str, float]]:
        """CPU seconds used so far by each process, with its role, in `roles` order."""
        return [(role, cpu_seconds(pid)) for role, pid in self.roles]

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far by each role (all table instances summed)."""
        used: dict[str, float] = {}
        for role, pid in self.roles:
            used[role] = used.get(role, 0.0) + cpu_seconds(pid)
        return used

    def table_rss_mib(self) -> float:
        """The resident memory of the largest table instance now, in MiB (/proc)."""
        return max(rss_mib(pid) for role, pid in self.roles if role == "table")

    def table_port(self, n: int) -> int:
        return self.table_ports[n % self.instances]

    def close(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        self.redis.close()
        if self.cluster is not None:
            self.cluster.close()


def machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy (not idle or waiting on I/O) since boot,
    over all cores (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class Client:
    """One principal's own connection, as its real client would have: an aio channel, and the
    bearer token it sends with every call (metadata per call: no interceptor in the way)."""

    def __init__(self, port: int, subject: str, role: auth.Role) -> None:
        self.channel = grpc.aio.insecure_channel(
            f"127.0.0.1:{port}", options=channel_options(DEFAULT_MAX_MESSAGE_BYTES)
        )
        token = auth.issue_token(KEY, subject, role, 7200)
        # Built once: a tuple would be converted to grpc.aio.Metadata on every call.
        self.metadata = grpc.aio.Metadata(*auth.bearer_metadata(token))
        self.table = table_pb2_grpc.TableServiceStub(self.channel)


def mean_think_s(tables: int, offered_hands_per_s: float) -> float:
    """Mean seconds between one table's Acts for `tables` tables to offer
    `offered_hands_per_s` hands/s together (ACTS_PER_HAND Acts a hand)."""
    return tables / (offered_hands_per_s * ACTS_PER_HAND)


class Schedule:
    """A paced table's Act times: the k-th Act is due at the start + the sum of k think times,
    exponential with mean `mean_think` seconds (so the room's Acts are close to a Poisson
    stream), drawn from a generator seeded per table: every run draws the same ones. The
    times do not depend on when the turns arrive, so the offered rate does not depend on
    the service's response time."""

    def __init__(self, mean_think: float, seed: int) -> None:
        self.rate = 1 / mean_think
        self.rng = random.Random(seed)
        self.due = 0.0

    def begin(self, at: float) -> None:
        self.due = at

    def next_due(self) -> float:
        self.due += self.rng.expovariate(self.rate)
        return self.due


def choose(rng: random.Random, legal: dict[int, int]) -> tuple[int, int]:
    """A random legal action with a plausible no-limit mix (see FACING / UNOPENED) and its
    amount: bets and raises to the minimum, never all in unless nothing else is legal."""
    mix = FACING if A.ACTION_CALL in legal else UNOPENED
    kinds = [k for k in mix if k in legal]
    if not kinds:  # nothing of the mix is legal: any legal action but all in
        kinds = [k for k in legal if k != A.ACTION_ALL_IN] or [*legal]
    kind = rng.choices(kinds, weights=[mix.get(k, 1) for k in kinds])[0]
    if kind in (A.ACTION_BET, A.ACTION_RAISE):
        return kind, legal[kind]
    return kind, 0


class TableBots:
    """One table: six random players acting over their own gRPC channels, and a spectator
    whose stream says whose turn it is. `mean_think` (seconds) paces the players on a
    `Schedule` (see the module docstring); None acts at once."""

    def __init__(
        self,
        n: int,
        table_id: str,
        players: list[Client],
        spectator: Client,
        mean_think: float | None,
    ) -> None:
        self.table_id = table_id
        self.players = players
        self.spectator = spectator
        self.rng = random.Random(n)  # the actions chosen
        self.schedule = None if mean_think is None else Schedule(mean_think, 1_000_000 + n)
        self.turns: asyncio.Queue[events_pb2.ActionRequested] = asyncio.Queue()
        self.arrivals: dict[int, float] = {}
        self.sent: list[tuple[float, int]] = []
        # Each answered Act's round trip (sent -> answer), ms, in the order of `sent`.
        self.round_trips: list[float] = []
        self.hands_done = 0
        self.errors = 0
        self.late = 0
        self.player_messages = 0
        self.act_keys = itertools.count()
        # Acts as messages on each player's Play stream (opened at its first Act) instead of
        # a unary Act call each (`--stream`).
        self.streamed = False
        self.plays: dict[int, grpc.aio.StreamStreamCall[A.PlayRequest, A.PlayResponse]] = {}

    async def _act(self, seat: int, request: A.ActRequest) -> int | None:
        """Send one Act of `seat`; the table's version after it, or None when refused."""
        player = self.players[seat]
        if not self.streamed:
            try:
                answer = await player.table.Act(request, metadata=player.metadata)
            except grpc.RpcError:
                return None
            return answer.version
        play = self.plays.get(seat)
        if play is None:
            play = self.plays[seat] = player.table.Play(metadata=player.metadata)
        try:
            await play.write(A.PlayRequest(act=request))
            response = await play.read()
        except grpc.RpcError:
            del self.plays[seat]  # the stream failed: the next Act opens a new one
            return None
        if not isinstance(response, A.PlayResponse) or response.WhichOneof("result") != "act":
            return None  # the stream ended, or the Act was refused
        return response.act.version

    def close_plays(self) -> None:
        for play in self.plays.values():
            play.cancel()
        self.plays.clear()

    def _on_event(self, event: events_pb2.TableEvent) -> None:
        self.arrivals[event.version] = time.perf_counter()
        kind = event.WhichOneof("event")
        if kind == "hand_ended":
            self.hands_done += 1
        elif kind == "action_requested":
            self.turns.put_nowait(event.action_requested)

    async def watch(self) -> None:
        """The spectator's stream: timestamps every event and hands the turns to `play`."""
        stream = self.spectator.table.WatchTable(
            A.WatchTableRequest(table_id=self.table_id, batch=True),
            metadata=self.spectator.metadata,
        )
        try:
            async for message in stream:
                if message.WhichOneof("item") == "events":
                    for event in message.events.events:
                        self._on_event(event)
                elif message.view.to_act >= 0:
                    # Joined mid-decision: the spectator's view has no legal actions.
                    self.turns.put_nowait(events_pb2.ActionRequested(seat=message.view.to_act))
        except grpc.RpcError:
            pass

    async def watch_as_player(self, seat: int) -> None:
        """Seat `seat`'s own WatchTable stream, as a real player's client keeps open: read and
        counted only (the turns come from the spectator's stream)."""
        player = self.players[seat]
        stream = player.table.WatchTable(
            A.WatchTableRequest(table_id=self.table_id, batch=True), metadata=player.metadata
        )
        try:
            async for _message in stream:
                self.player_messages += 1
        except grpc.RpcError:
            pass

    async def play(self, schedule_start: float) -> None:
        """Act whenever the stream asks a seat to act, from what the request says it may do
        (GetTableView only when the stream started mid-decision); paced, the k-th Act waits
        until schedule_start + k think times."""
        if self.schedule is not None:
            self.schedule.begin(schedule_start)
        while True:
            turn = await self.turns.get()
            seat, hand, legal = turn.seat, turn.hand, _legal(turn)
            if not legal:
                player = self.players[seat]
                try:
                    response = await player.table.GetTableView(
                        A.GetTableViewRequest(table_id=self.table_id), metadata=player.metadata
                    )
                except grpc.RpcError:
                    self.errors += 1
                    continue
                view = response.view
                if view.to_act != seat:
                    continue  # a stale turn (the stream ran ahead of us): wait for the next
                hand, legal = view.hand_number, {a.action: a.min_amount for a in view.legal_actions}
            action, amount = choose(self.rng, legal)
            late = False
            if self.schedule is not None:
                wait = self.schedule.next_due() - time.perf_counter()
                late = wait <= 0
                if not late:
                    await asyncio.sleep(wait)
            request = A.ActRequest(
                table_id=self.table_id,
                hand_number=hand,
                action=action,  # type: ignore[arg-type]
                amount=amount,
                idempotency_key=f"act-{next(self.act_keys)}",
            )
            started = time.perf_counter()
            version = await self._act(seat, request)
            if version is None:
                self.errors += 1
                continue
            self.round_trips.append((time.perf_counter() - started) * 1000)
            self.sent.append((started, version))
            self.late += late


ACTION_BY_NAME: dict[str, int] = {
    "fold": A.ACTION_FOLD,
    "check": A.ACTION_CHECK,
    "call": A.ACTION_CALL,
    "bet": A.ACTION_BET,
    "raise": A.ACTION_RAISE,
    "all-in": A.ACTION_ALL_IN,
}


def _legal(turn: events_pb2.ActionRequested) -> dict[int, int]:
    """Legal betting actions of a request -> their minimum "to" amount (0 when none)."""
    return {
        ACTION_BY_NAME[name]: turn.min_to if name in ("bet", "raise") else 0
        for name in turn.legal_actions
        if name in ACTION_BY_NAME
    }


@dataclass
class IdleStreams:
    """The open streams of a row: their tasks, how many got their first message, how many
    the server refused or dropped before it."""

    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    opened: int = 0
    failed: int = 0


class Room:
    """The tables of one row, set up through the public API (not measured): the house creates
    each table, the bank funds six player accounts, each player joins with its own token."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.clients: list[Client] = []
        self.tables: list[TableBots] = []

    def client(self, port: int, subject: str, role: auth.Role) -> Client:
        client = Client(port, subject, role)
        self.clients.append(client)
        return client

    async def open(self, tables: int, mean_think: float | None) -> None:
        ledger_client = self.client(self.stack.ports["ledger"], "bench", auth.Role.SERVICE)
        ledger = ledger_pb2_grpc.LedgerServiceStub(ledger_client.channel)
        admins = [self.client(port, "house", auth.Role.ADMIN) for port in self.stack.table_ports]
        limit = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one(n: int) -> TableBots:
            async with limit:
                return await self._open_table(
                    n, ledger, ledger_client.metadata, admins[n % len(admins)], mean_think
                )

        self.tables = list(await asyncio.gather(*(one(n) for n in range(tables))))

    async def _open_table(
        self,
        n: int,
        ledger: LedgerServiceAsyncStub,
        bank: grpc.aio.Metadata,
        admin: Client,
        mean_think: float | None,
    ) -> TableBots:
        table_id = f"b{uuid.uuid4().hex[:12]}"
        port = self.stack.table_port(n)
        await admin.table.CreateTable(
            A.CreateTableRequest(
                table_id=table_id,
                idempotency_key="create",
                options=A.TableOptions(
                    game=A.GAME_TEXAS_HOLDEM,
                    structure=A.STRUCTURE_NO_LIMIT,
                    seats=SEATS,
                    small_blind=1,
                    big_blind=2,
                    min_buy_in=20,
                    max_buy_in=1_000_000,
                    min_players_to_start=SEATS,
                ),
            ),
            metadata=admin.metadata,
        )
        players = []
        for seat in range(SEATS):
            name = f"{table_id}-p{seat}"
            await ledger.OpenAccount(
                ledger_pb2.OpenAccountRequest(
                    kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=name, currency="CHIP"
                ),
                metadata=bank,
            )
            await ledger.Deposit(
                ledger_pb2.DepositRequest(
                    idempotency_key=f"fund-{name}",
                    account_id=f"player:{name}:CHIP",
                    amount=chips_pb2.ChipAmount(currency="CHIP", amount=1_000_000),
                ),
                metadata=bank,
            )
            player = self.client(port, name, auth.Role.PLAYER)
            await player.table.JoinTable(
                A.JoinTableRequest(
                    table_id=table_id, seat=seat, buy_in=1_000_000, idempotency_key="join"
                ),
                metadata=player.metadata,
            )
            players.append(player)
        spectator = self.client(port, f"{table_id}-watcher", auth.Role.PLAYER)
        return TableBots(n, table_id, players, spectator, mean_think)

    async def open_idle_streams(self, streams: int) -> IdleStreams:
        """`streams` WatchTable streams held open on quiet tables (created, nobody seated:
        no events flow), spread over QUIET_TABLES tables of the first instance and one
        channel per STREAMS_PER_CHANNEL streams, as many separate viewers' clients would hold
        them; returns once every stream has its first message (the view), or after
        IDLE_STREAMS_OPEN_WITHIN_S with how many did (a server that cannot hold them all)."""
        idle = IdleStreams()
        if not streams:
            return idle
        admin = self.client(self.stack.table_ports[0], "house", auth.Role.ADMIN)
        quiet = []
        for n in range(QUIET_TABLES):
            table_id = f"q{uuid.uuid4().hex[:12]}"
            await admin.table.CreateTable(
                A.CreateTableRequest(
                    table_id=table_id,
                    idempotency_key=f"quiet-{n}",
                    options=A.TableOptions(
                        game=A.GAME_TEXAS_HOLDEM,
                        structure=A.STRUCTURE_NO_LIMIT,
                        seats=SEATS,
                        small_blind=1,
                        big_blind=2,
                    ),
                ),
                metadata=admin.metadata,
            )
            quiet.append(table_id)
        viewers = [
            self.client(self.stack.table_ports[0], f"viewer-{n}", auth.Role.PLAYER)
            for n in range(-(-streams // STREAMS_PER_CHANNEL))
        ]
        settled = asyncio.Semaphore(0)  # released once per stream: opened, or failed

        async def hold(n: int) -> None:
            viewer = viewers[n // STREAMS_PER_CHANNEL]
            stream = viewer.table.WatchTable(
                A.WatchTableRequest(table_id=quiet[n % len(quiet)], batch=True),
                metadata=viewer.metadata,
            )
            first = True
            try:
                async for _message in stream:
                    if first:
                        idle.opened += 1
                        settled.release()
                        first = False
            except grpc.RpcError:
                if first:
                    idle.failed += 1
                    settled.release()

        idle.tasks = [asyncio.create_task(hold(n)) for n in range(streams)]

        async def all_settled() -> None:
            for _ in range(streams):
                await settled.acquire()

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_settled(), IDLE_STREAMS_OPEN_WITHIN_S)
        return idle

    async def close(self) -> None:
        await asyncio.gather(*(client.channel.close() for client in self.clients))


async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel `tasks` and wait for them; a task that had already died of an error raises it
    (a player that crashed would otherwise show as a row with no Acts and no errors)."""
    crashed = [t for t in tasks if t.done() and not t.cancelled() and t.exception() is not None]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if crashed:
        raise RuntimeError(f"{len(crashed)} benchmark task(s) failed") from crashed[0].exception()


class LagProbe:
    """How late this client's event loop runs a timer (every LAG_PROBE_S): when the client
    itself is stalled (its own work, or the machine not running it), its Acts' latencies grow
    by as much, so a latency tail that the probe also shows is not the services'."""

    def __init__(self) -> None:
        self.lags: list[tuple[float, float]] = []  # (when, ms late)

    async def run(self) -> None:
        while True:
            due = time.perf_counter() + LAG_PROBE_S
            await asyncio.sleep(LAG_PROBE_S)
            now = time.perf_counter()
            self.lags.append((now, (now - due) * 1000))

    def between(self, start: float, end: float) -> list[float]:
        return [lag for when, lag in self.lags if start <= when <= end]


async def _warm_up(drivers: list[TableBots]) -> None:
    """Play until every table has finished a hand since the players started (at most
    WARM_UP_LIMIT seconds): the tables are set up together, so their first hands end
    together; after one hand of random length their phases are spread, as in a room that has
    been playing for a while."""
    first = [d.hands_done for d in drivers]
    deadline = time.perf_counter() + WARM_UP_LIMIT
    while time.perf_counter() < deadline and any(
        d.hands_done == n for d, n in zip(drivers, first, strict=True)
    ):
        await asyncio.sleep(0.1)


async def _play_row(
    stack: Stack,
    tables: int,
    seconds: float,
    players_watch: bool,
    offered_hands_per_s: float | None,
    warm_up: bool,
    streamed: bool = False,
    idle_streams: int = 0,
) -> tuple[dict[str, object], dict[str, float]]:
    mean_think = None if offered_hands_per_s is None else mean_think_s(tables, offered_hands_per_s)
    room = Room(stack)
    drivers: list[TableBots] = []
    idle = IdleStreams()
    try:
        await room.open(tables, mean_think)
        idle = await room.open_idle_streams(idle_streams)
        drivers = room.tables
        for driver in drivers:
            driver.streamed = streamed
        watchers = [asyncio.create_task(d.watch()) for d in drivers]
        if players_watch:
            watchers += [
                asyncio.create_task(d.watch_as_player(seat))
                for d in drivers
                for seat in range(SEATS)
            ]
        probe = LagProbe()
        watchers.append(asyncio.create_task(probe.run()))
        await asyncio.sleep(0.5)
        schedule_start = time.perf_counter()
        players = [asyncio.create_task(d.play(schedule_start)) for d in drivers]
        if warm_up:
            await _warm_up(drivers)
        # The measured window: what the tables did between these two snapshots.
        start_hands = sum(d.hands_done for d in drivers)
        start_late = sum(d.late for d in drivers)
        first_act = [len(d.sent) for d in drivers]
        cpu_before = stack.cpu()
        by_process_before = stack.cpu_by_process()
        machine_before = machine_busy_s()
        load = os.getloadavg()[0]
        started = time.perf_counter()
        await asyncio.sleep(seconds)
        hands = sum(d.hands_done for d in drivers) - start_hands
        late = sum(d.late for d in drivers) - start_late
        last_act = [len(d.sent) for d in drivers]
        ended = time.perf_counter()
        elapsed = ended - started
        cpu_after = stack.cpu()
        by_process_after = stack.cpu_by_process()
        machine_busy = machine_busy_s() - machine_before
        rss = stack.table_rss_mib()
        await _cancel(players)
        await asyncio.sleep(0.3)  # the events of the window's last Acts still arrive
        await _cancel(watchers)
        await _cancel(idle.tasks)
    finally:
        for task in idle.tasks:
            task.cancel()
        for driver in drivers:
            driver.close_plays()
        await room.close()
    window = [(d, d.sent[i:j]) for d, i, j in zip(drivers, first_act, last_act, strict=True)]
    acts = sum(len(sent) for _, sent in window)
    latencies = [
        (d.arrivals[version] - sent) * 1000
        for d, acts_sent in window
        for sent, version in acts_sent
        if version in d.arrivals
    ]
    lags = probe.between(started, ended)
    round_trips = [
        rtt
        for d, i, j in zip(drivers, first_act, last_act, strict=True)
        for rtt in d.round_trips[i:j]
    ]
    # The busiest process of each role, as a share of one core over the window: a process
    # near 100 % is bound by its own interpreter (the GIL), whatever the machine has free.
    busiest: dict[str, float] = {}
    for (role, before), (_, after) in zip(by_process_before, by_process_after, strict=True):
        busiest[role] = max(busiest.get(role, 0.0), 100 * (after - before) / elapsed)
    cpu_ms = {
        role: (cpu_after[role] - cpu_before[role]) * 1000 / hands if hands else float("nan")
        for role in cpu_after
    }
    row: dict[str, object] = {
        "table_instances": stack.instances,
        "redis": "cluster (3 masters)" if stack.cluster else "single",
        "tables": tables,
        "watchers_per_table": 1 + SEATS if players_watch else 1,
        "players": "saturated" if offered_hands_per_s is None else "paced",
        "acts_over": "stream" if streamed else "call",
        "offered_hands_per_s": "-" if offered_hands_per_s is None else offered_hands_per_s,
        "seconds": round(elapsed, 1),
        "hands": hands,
        "hands_per_s": hands / elapsed,
        "acts": acts,
        "acts_per_s": acts / elapsed,
        "acts_per_hand": acts / hands if hands else float("nan"),
        "act_to_event_p50_ms": percentile(latencies, 0.50),
        "act_to_event_p99_ms": percentile(latencies, 0.99),
        "mean_ms": statistics.fmean(latencies) if latencies else float("nan"),
        "act_rpc_p50_ms": percentile(round_trips, 0.50),
        "act_rpc_p99_ms": percentile(round_trips, 0.99),
        "client_lag_p99_ms": percentile(lags, 0.99),
        "late_acts_pct": "-" if mean_think is None else 100 * late / acts if acts else 0.0,
        # CPU per finished hand, from /proc (less sensitive to the machine's load than
        # hands/s; the client is this process: the players' and spectators' gRPC calls).
        "cpu_ms_per_hand_table": cpu_ms["table"],
        "cpu_ms_per_hand_client": cpu_ms["client"],
        "cpu_ms_per_hand_all": sum(cpu_ms.values()),
        "idle_streams": idle_streams,
        "idle_streams_open": idle.opened,
        "table_rss_mib": rss,
        # The busiest table process and Redis node (% of one core), and the whole machine's
        # busy cores over the window (every process on it, other users' too: /proc/stat).
        "table_process_core_pct_max": busiest.get("table", 0.0),
        "redis_process_core_pct_max": busiest.get("redis", 0.0),
        "machine_busy_cores": machine_busy / elapsed,
        "load_1m": round(load, 1),
        "errors": sum(d.errors for d in drivers),
    }
    return row, cpu_ms


def _measure(
    stack: Stack,
    tables: int,
    seconds: float,
    players_watch: bool = False,
    offered_hands_per_s: float | None = None,
    streamed: bool = False,
) -> dict[str, object]:
    """One row: saturated players, or paced to `offered_hands_per_s` for the whole room;
    with `players_watch` every seated player also keeps its own WatchTable stream open
    (seven watchers a table instead of the spectator alone); with `streamed` the players
    send their Acts on Play streams instead of Act calls."""
    return measure_with_roles(
        stack, tables, seconds, players_watch, offered_hands_per_s, streamed=streamed
    )[0]


def measure_with_roles(
    stack: Stack,
    tables: int,
    seconds: float,
    players_watch: bool = False,
    offered_hands_per_s: float | None = None,
    warm_up: bool = True,
    streamed: bool = False,
    idle_streams: int = 0,
) -> tuple[dict[str, object], dict[str, float]]:
    """The row, and the CPU ms per finished hand of every process role in its window.
    `warm_up=False` starts the window as the players start (the benchmark before 30 Nov
    2026 did), for comparisons with it; `idle_streams` WatchTable streams are held open on
    quiet tables of the first instance throughout (`Room.open_idle_streams`)."""
    return _loop().run_until_complete(
        _play_row(
            stack,
            tables,
            seconds,
            players_watch,
            offered_hands_per_s,
            warm_up,
            streamed,
            idle_streams,
        )
    )


_LOOP: list[asyncio.AbstractEventLoop] = []


def _loop() -> asyncio.AbstractEventLoop:
    """The process's one event loop for every row: grpc.aio binds its completion-queue
    poller to the loop it first ran on, so rows do not each start a new one."""
    if not _LOOP:
        _LOOP.append(asyncio.new_event_loop())
        asyncio.set_event_loop(_LOOP[0])
    return _LOOP[0]


# (instances, tables, players_watch, offered hands/s or None for saturated, Acts streamed)
Plan = list[tuple[int, int, bool, float | None, bool]]


def plan(quick: bool, instances: int = 2) -> Plan:
    """Saturated rows with one table instance at 1, 10 (and 100) tables and 10 tables with
    every player watching too; paced rows at 100 tables; then the same against `instances`
    sharded table instances (separate rows)."""
    counts: tuple[int, ...] = (1, 10) if quick else (1, 10, 100)
    offered = (TARGET_HANDS_PER_S,) if quick else PACED_HANDS_PER_S
    saturated: float | None = None
    rows: Plan = [(1, t, False, saturated, False) for t in counts]
    rows += [(1, 10, True, saturated, False)]
    rows += [(1, PACED_TABLES, False, o, False) for o in offered]
    # The same with the players' Acts on Play streams: saturated, and at the target.
    rows += [(1, t, False, saturated, True) for t in counts[1:]]
    rows += [(1, PACED_TABLES, False, TARGET_HANDS_PER_S, True)]
    if instances > 1:
        rows += [(instances, t, False, saturated, False) for t in counts[1:]]
        rows += [(instances, PACED_TABLES, False, TARGET_HANDS_PER_S, False)]
    return rows


def run(quick: bool, instances: int = 2) -> list[dict[str, object]]:
    seconds = 5.0 if quick else 20.0
    rows = plan(quick, instances)
    results = []
    # Rows with Acts as calls share one stack per instance count. Each streamed row gets a
    # fresh one: on the sync server every open stream holds a thread, and the 600 Play streams
    # of a 100-table row are not all given back when the next row opens its own (a streamed
    # row run right after another on one stack measured 8.4 hands/s at 119 ms of table CPU a
    # hand, against 39.9 hands/s on a fresh stack).
    batches = [
        [row for row in rows if row[0] == n and not row[4]]
        for n in dict.fromkeys(r[0] for r in rows)
    ]
    batches += [[row] for row in rows if row[4]]
    for batch in batches:
        if not batch:
            continue
        stack = Stack(batch[0][0])
        try:
            results += [_measure(stack, t, seconds, w, o, s) for _, t, w, o, s in batch]
        finally:
            stack.close()
    return results


def main(argv: list[str] | None = None) -> None:
    """`python -m bench.bench_table [--full]`: the rows of `run`; `--row INSTANCES TABLES
    SECONDS [--offered HANDS_PER_S] [--watch] [--no-warm-up]`: one row, then the CPU ms per
    hand of each process role."""
    parser = argparse.ArgumentParser(prog="python -m bench.bench_table")
    parser.add_argument("--full", action="store_true", help="the full run (else quick)")
    parser.add_argument("--row", nargs=3, type=float, metavar=("INSTANCES", "TABLES", "SECONDS"))
    parser.add_argument("--offered", type=float, help="paced to this many hands/s (room)")
    parser.add_argument("--watch", action="store_true", help="the players watch too")
    parser.add_argument("--no-warm-up", action="store_true", help="window from the start")
    parser.add_argument("--stream", action="store_true", help="Acts on Play streams")
    parser.add_argument(
        "--cluster", action="store_true", help="state on a 3-master Redis Cluster (loopback)"
    )
    args = parser.parse_args(argv)
    if args.row is None:
        for result in run(quick=not args.full):
            print(result)
        return
    instances, tables, seconds = args.row
    stack = Stack(int(instances), cluster=args.cluster)
    try:
        row, roles = measure_with_roles(
            stack,
            int(tables),
            seconds,
            args.watch,
            args.offered,
            not args.no_warm_up,
            args.stream,
        )
    finally:
        stack.close()
    print(row)
    print({role: round(ms, 1) for role, ms in roles.items()})


if __name__ == "__main__":
    main()
