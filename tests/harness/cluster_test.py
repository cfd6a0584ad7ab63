"""`make cluster-test` (`python -m tests.harness.cluster_test`): the platform replicated on a
Redis Cluster on loopback, bot tables playing through it while its parts are killed, then
every chip and every command accounted for.

What it starts, every part a real process on free loopback ports:

* a Redis Cluster of 3 masters with one replica each (`redis-server --cluster-enabled yes`,
  joined by `redis-cli --cluster create --cluster-replicas 1 --cluster-yes`;
  tests/fixtures/redis_cluster.py), holding the tables, shuffles and the ledger, and one
  plain Redis for Celery's broker and the workers' indexes (docs/scale-out.md: kombu has no
  cluster client);
* 2 evaluators, 2 dealers, 2 ledgers, 3 table replicas (`python -m services.<name>`), every
  client reaching each service through one channel balanced round-robin over its replicas
  (`CROUPIER_<SVC>_TARGET=host:port,host:port`); the table ranks showdowns through the
  evaluators' RPC so that they are in the path;
* 2 Celery workers (`python -m services.workers`, each embedding a beat; the sweeper lease
  makes one of them the sweeper).

Then `tables` bot tables (built-in bots seated with their own bot tokens and played by the
workers through the public API, as `croupier simulate --full-stack` does) play while the
faults come one after another, each once every table has finished a hand since the last:

1. kill -9 of a table replica while hands are in progress (started again once the tables
   played on without it);
2. kill -9 of the worker holding the sweeper lease (started again likewise);
3. `CLUSTER FAILOVER` on the replica of the master holding the first table's stream;
4. kill -9 of the master holding the ledger's journal (its replica elected; the killed node
   started again, rejoining as a replica). Replication is asynchronous, so the kill waits
   (a few seconds at most) for a moment the replica has everything; whether it found one is
   in the report.

After every table has played `hands_after` more hands the bots leave, and the checks run:
every hand completed or was voided with every stake returned; no card dealt twice and the
dealer's record of each completed hand's cards equals the table's; no command applied twice
(in every event stream on every master: versions contiguous, each idempotency key one run of
entries); chips conserved (every table's escrow empty, the bots' accounts hold every chip
deposited for them); the ledger's audit clean; and every process not killed on purpose still
running. It prints a PASS/FAIL line per check and exits 0 only when all pass; the processes'
logs are kept (their directory is printed) when one fails.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import secrets
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

import grpc
import redis

from croupier.common.v1 import chips_pb2
from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.bots.identity import bot_id
from services.games.poker import events as ev
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import RedisEventStore, stream_key
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary
from services.table import codec
from services.table.application import table_stream
from services.workers.settings import SWEEPER_LEASE_KEY
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_cluster import LocalRedisCluster
from tests.fixtures.service_process import ServiceProcess
from tests.integration.bots.soak import dealt_once
from tests.integration.workers.worker_process import WorkerProcess

KEY = "cluster-test-signing-key-0123456789abcdef"
CURRENCY = "CHIP"
STACK = 1000  # 500 big blinds: a bust is rare, and a busted bot buys back in
BANKROLL_STACKS = 5
POLICIES = ("random", "tight")
# What a call may meet while a replica dies or the cluster elects a master: sent again, with
# the same idempotency key, until its deadline.
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
CALL_DEADLINE_S = 60.0
POLL_S = 0.25
# How long the kill of a master waits for a moment its replica has caught up.
SYNC_WINDOW_S = 5.0

# Processes of each gRPC service, and Celery workers.
REPLICAS = {"evaluator": 2, "dealer": 2, "ledger": 2, "table": 3}
WORKERS = 2

T = TypeVar("T")


def retried(call: Callable[[], T], deadline_s: float = CALL_DEADLINE_S) -> T:
    """`call()` until it is not UNAVAILABLE / DEADLINE_EXCEEDED (a replica or a Redis master
    going away), for at most `deadline_s`; the caller keeps its idempotency key the same."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            return call()
        except grpc.RpcError as error:
            code = error.code() if isinstance(error, grpc.Call) else None
            if code not in RETRIED or time.monotonic() > end:
                raise
            time.sleep(0.1)


@dataclass(frozen=True, slots=True)
class Size:
    tables: int = 6
    seats: int = 3
    # Hands every table plays after the last fault before the bots leave.
    hands_after: int = 2
    # Longest wait for every table to finish a hand after a fault.
    recovery_timeout_s: float = 120.0


DEFAULT = Size()


@dataclass
class Deployment:
    """Every process of the platform; `start` brings them up, `close` takes them down."""

    log_dir: Path
    cluster: LocalRedisCluster = field(default_factory=lambda: LocalRedisCluster(3, 1))
    broker: EmbeddedRedis | None = None
    services: dict[str, list[ServiceProcess]] = field(default_factory=dict)
    workers: list[WorkerProcess] = field(default_factory=list)

    def target(self, name: str) -> str:
        return ",".join(p.address for p in self.services[name])

    def start(self) -> Deployment:
        binary = find_server_binary(need_waitaof=False)
        if binary is None:
            raise RuntimeError("the cluster test needs redis-server (or valkey-server)")
        self.cluster.start()
        self.broker = EmbeddedRedis(binary, own_session=False).start()
        env = {
            "CROUPIER_AUTH_KEY": KEY,
            "REDIS_CLUSTER_NODES": self.cluster.seed_nodes,
            "CROUPIER_WORKERS_REDIS_URL": self.broker.url,
            "CROUPIER_DEALER_KEY": secrets.token_hex(32),
            "CROUPIER_LOG_LEVEL": "warning",
            "CROUPIER_TABLE_RANKER": "evaluator",
            # A replica killed mid-step: another one finishes the table's steps this soon.
            "CROUPIER_TABLE_RECOVERY_GRACE_S": "2",
            "CROUPIER_TABLE_VOID_AFTER_S": "10",
            # Every write acknowledged only once the master's replica has it: a master killed
            # inside the replication lag loses nothing acknowledged (docs/scale-out.md).
            "CROUPIER_TABLE_WAIT_REPLICAS": "1",
            "CROUPIER_DEALER_WAIT_REPLICAS": "1",
            "CROUPIER_LEDGER_WAIT_REPLICAS": "1",
        }
        for name, count in REPLICAS.items():
            self.services[name] = [
                ServiceProcess(name, env, self.log_dir / f"{name}-{n}.log") for n in range(count)
            ]
        targets = {f"CROUPIER_{name.upper()}_TARGET": self.target(name) for name in self.services}
        for process in itertools.chain(*self.services.values()):
            process.env.update(targets)
        # The services that call none first, in parallel; then the table replicas.
        _in_parallel([p.start for n in ("evaluator", "dealer", "ledger") for p in self.services[n]])
        _in_parallel([p.start for p in self.services["table"]])
        worker_env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")},
            **env,
            **targets,
            "CROUPIER_WORKERS_BOT_DELAY": "0",
            "CROUPIER_WORKERS_CONCURRENCY": "4",
            "CROUPIER_WORKERS_SWEEP_INTERVAL": "0.5",
            # A bot turn lost with a killed worker is sent again this soon.
            "CROUPIER_WORKERS_BOT_RESEND": "2",
        }
        worker_env.pop("REDIS_URL", None)
        self.workers = [
            WorkerProcess(worker_env, self.log_dir / f"worker-{n}.log") for n in range(WORKERS)
        ]
        _in_parallel([w.start for w in self.workers])
        return self

    def processes(self) -> Iterator[tuple[str, bool]]:
        """Every process by name, and whether it runs."""
        for name, replicas in self.services.items():
            for n, process in enumerate(replicas):
                yield f"{name}-{n}", process.running
        for n, worker in enumerate(self.workers):
            alive = worker.process is not None and worker.process.poll() is None
            yield f"worker-{n}", alive

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()
        for name in ("table", "ledger", "dealer", "evaluator"):
            for process in self.services.get(name, []):
                process.stop()
        if self.broker is not None:
            self.broker.close()
        self.cluster.close()


def _in_parallel(calls: Sequence[Callable[[], object]]) -> None:
    """Run `calls` at once (processes importing in parallel), re-raising the first failure."""
    errors: list[BaseException] = []

    def run(call: Callable[[], object]) -> None:
        try:
            call()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


@dataclass
class Room:
    """The bot tables, driven through the public API over the balanced channels."""

    deployment: Deployment
    size: Size
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    tables: list[str] = field(default_factory=list)
    bots: dict[str, list[str]] = field(default_factory=dict)  # table -> seated bots
    deposited: int = 0
    finished: dict[str, int] = field(default_factory=dict)  # table -> most hands seen done
    channels: list[grpc.Channel] = field(default_factory=list)

    def _channel(self, name: str, subject: str, role: auth.Role) -> grpc.Channel:
        token = auth.issue_token(KEY, subject, role, 7200)
        channel = connect(self.deployment.target(name), token)
        self.channels.append(channel)
        return channel

    def open(self) -> None:
        self.admin = table_pb2_grpc.TableServiceStub(
            self._channel("table", "house", auth.Role.ADMIN)
        )
        self.ledger = ledger_pb2_grpc.LedgerServiceStub(
            self._channel("ledger", "cluster-test", auth.Role.SERVICE)
        )
        # (an auditor: the dealer shows a closed shuffle's dealt cards only to the table,
        # admins and auditors; any other service gets the public part, without the cards)
        self.dealer = dealer_pb2_grpc.DealerServiceStub(
            self._channel("dealer", "cluster-test", auth.Role.AUDITOR)
        )
        self.players: dict[str, table_pb2_grpc.TableServiceStub] = {}
        options = table_pb2.TableOptions(
            game=table_pb2.GAME_TEXAS_HOLDEM,
            structure=table_pb2.STRUCTURE_NO_LIMIT,
            seats=self.size.seats,
            currency=CURRENCY,
            small_blind=1,
            big_blind=2,
            min_buy_in=STACK,
            max_buy_in=STACK,
            action_time_ms=10_000,
        )
        for n in range(self.size.tables):
            created = retried(
                lambda n=n: self.admin.CreateTable(  # type: ignore[misc]
                    table_pb2.CreateTableRequest(
                        options=options, idempotency_key=f"cluster-test-{self.run_id}-{n}"
                    )
                )
            )
            table_id = created.table_id
            self.tables.append(table_id)
            self.bots[table_id] = []
            for seat in range(self.size.seats):
                policy = POLICIES[seat % len(POLICIES)]
                player = bot_id(policy, f"c{self.run_id}t{n}s{seat}")
                self._fund(player)
                stub = table_pb2_grpc.TableServiceStub(
                    self._channel("table", player, auth.Role.BOT)
                )
                self.players[player] = stub
                self.bots[table_id].append(player)
                request = table_pb2.JoinTableRequest(
                    table_id=table_id, seat=seat, buy_in=STACK, idempotency_key=f"join-{player}"
                )
                retried(lambda stub=stub, request=request: stub.JoinTable(request))  # type: ignore[misc]
            self.finished[table_id] = 0

    def _fund(self, player: str) -> None:
        with contextlib.suppress(grpc.RpcError):  # ALREADY_EXISTS on a retry
            self.ledger.OpenAccount(
                ledger_pb2.OpenAccountRequest(
                    kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency=CURRENCY
                )
            )
        amount = BANKROLL_STACKS * STACK
        retried(
            lambda: self.ledger.Deposit(
                ledger_pb2.DepositRequest(
                    idempotency_key=f"cluster-test/{player}",
                    account_id=f"player:{player}:{CURRENCY}",
                    amount=chips_pb2.ChipAmount(currency=CURRENCY, amount=amount),
                )
            )
        )
        self.deposited += amount

    def view(self, table_id: str) -> table_pb2.TableView:
        request = table_pb2.GetTableViewRequest(table_id=table_id)
        return retried(lambda: self.admin.GetTableView(request)).view

    def poll(self) -> dict[str, table_pb2.TableView]:
        """Every table's view; records the hands each has finished and buys busted bots back
        in (from their bankroll, while they sit out)."""
        views = {}
        for table_id in self.tables:
            view = self.view(table_id)
            views[table_id] = view
            done = view.hand_number - (1 if view.hand_in_progress else 0)
            # Replicas' caches may lag one another: never count backwards.
            self.finished[table_id] = max(self.finished[table_id], done)
            for seat in view.seats:
                if seat.player_id and seat.stack == 0 and not seat.in_hand:
                    self._top_up(table_id, seat.player_id, view.hand_number)
        return views

    def _top_up(self, table_id: str, player: str, hand: int) -> None:
        request = table_pb2.TopUpRequest(
            table_id=table_id, amount=STACK, idempotency_key=f"topup-{player}-{hand}"
        )
        try:
            retried(lambda: self.players[player].TopUp(request))
        except grpc.RpcError as error:
            # In the next hand after all, or a top-up already on its way: not busted now.
            if not isinstance(error, grpc.Call) or error.code() not in (
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.ALREADY_EXISTS,
            ):
                raise

    def wait_hands(self, hands: int, timeout_s: float) -> float:
        """Until every table has finished `hands` more hands; the seconds it took."""
        started = time.monotonic()
        self.poll()  # from now, not from the last look
        goal = {t: done + hands for t, done in self.finished.items()}
        while True:
            self.poll()
            behind = [t for t in self.tables if self.finished[t] < goal[t]]
            if not behind:
                return time.monotonic() - started
            if time.monotonic() - started > timeout_s:
                raise TimeoutError(
                    f"{len(behind)} table(s) did not finish {hands} more hand(s) within "
                    f"{timeout_s:.0f} s: {', '.join(f'{t} at {self.finished[t]}' for t in behind)}"
                )
            time.sleep(POLL_S)

    def wait_in_progress(self, timeout_s: float = 30.0) -> int:
        """Until some table is mid-hand; how many are."""
        end = time.monotonic() + timeout_s
        while True:
            playing = sum(v.hand_in_progress for v in self.poll().values())
            if playing or time.monotonic() > end:
                return playing
            time.sleep(0.05)

    def leave(self, timeout_s: float = 120.0) -> None:
        """Every bot leaves (after the hand in progress); until every seat is empty."""
        for table_id, players in self.bots.items():
            for player in players:
                request = table_pb2.LeaveTableRequest(
                    table_id=table_id, idempotency_key=f"leave-{player}"
                )
                retried(
                    lambda player=player, request=request: self.players[player].LeaveTable(  # type: ignore[misc]
                        request
                    )
                )
        wait_until(
            lambda: not any(s.player_id for t in self.tables for s in self.view(t).seats),
            timeout_s,
            "every bot gone from its table",
            poll=POLL_S,
        )

    def balance(self, account: str) -> int:
        request = ledger_pb2.GetBalanceRequest(account_id=account)
        return int(retried(lambda: self.ledger.GetBalance(request)).balance.balance)

    def close(self) -> None:
        for channel in self.channels:
            channel.close()


@dataclass
class Fault:
    name: str
    detail: str = ""
    recovered_s: float | None = None
    error: str = ""


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def kill_table_replica(deployment: Deployment, room: Room) -> str:
    playing = room.wait_in_progress()
    victim = deployment.services["table"][0]
    victim.kill()
    return f"table-0 ({victim.address}) while {playing} of {len(room.tables)} tables were mid-hand"


def kill_sweeper_worker(deployment: Deployment, room: Room) -> str:
    """kill -9 of the worker whose beat holds the sweeper lease (the first one if none)."""
    assert deployment.broker is not None
    client = redis.Redis.from_url(deployment.broker.url)
    try:
        holder = (cast(bytes | None, client.get(SWEEPER_LEASE_KEY)) or b"").decode()
    finally:
        client.close()
    # The holder id is <host>-<pid>-<random>.
    parts = holder.rsplit("-", 2)
    pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else -1
    number = next(
        (n for n, w in enumerate(deployment.workers) if w.process and w.process.pid == pid), 0
    )
    deployment.workers[number].kill()
    held = "holding the sweeper lease" if pid >= 0 and holder else "(no lease holder found)"
    return f"worker-{number} {held}"


def failover_table_master(deployment: Deployment, room: Room) -> str:
    cluster = deployment.cluster
    master = cluster.master_of(table_stream(room.tables[0]))
    promoted = cluster.failover(master)
    return f"master :{master.port} of table {room.tables[0]}'s stream -> replica :{promoted.port}"


def kill_ledger_master(deployment: Deployment, room: Room) -> str:
    cluster = deployment.cluster
    master = cluster.master_of(stream_key("ledger", "ledger"))
    replica = cluster.replicas_of(master)[0]
    # Replication is asynchronous: kill in a moment the replica has everything (bounded).
    end = time.monotonic() + SYNC_WINDOW_S
    synced = False
    while not synced and time.monotonic() < end:
        synced = cluster.replication_lag(master, replica) == 0
        if not synced:
            time.sleep(0.002)
    master.kill()
    wait_until(lambda: cluster.role(replica) == "master", 30, "the replica elected")
    cluster.wait_healthy()
    master.restart()  # rejoins the cluster as the new master's replica
    wait_until(lambda: cluster.role(master) == "slave", 30, "the killed master back as replica")
    cluster.wait_healthy()
    caught_up = "replica caught up at the kill" if synced else "REPLICA BEHIND at the kill"
    return f"master :{master.port} of the ledger's journal ({caught_up}) -> :{replica.port}"


def restart_killed(deployment: Deployment) -> None:
    """Start again every table replica and worker the faults killed."""
    for process in deployment.services["table"]:
        if not process.running:
            process.start()
    for worker in deployment.workers:
        if worker.process is None or worker.process.poll() is not None:
            worker.start()


FAULTS: tuple[tuple[str, Callable[[Deployment, Room], str]], ...] = (
    ("kill -9 of a table replica mid-hand", kill_table_replica),
    ("kill -9 of a Celery worker", kill_sweeper_worker),
    ("CLUSTER FAILOVER of a Redis master", failover_table_master),
    ("kill -9 of a Redis master", kill_ledger_master),
)


def run_faults(
    deployment: Deployment, room: Room, size: Size, say: Callable[[str], None]
) -> list[Fault]:
    """Each fault once every table has finished a hand since the last (or since the start);
    after each, until every table finished one more hand (recovered_s), then the killed
    process starts again."""
    done: list[Fault] = []
    room.wait_hands(1, size.recovery_timeout_s)
    for name, inject in FAULTS:
        fault = Fault(name)
        done.append(fault)
        try:
            fault.detail = inject(deployment, room)
            say(f"  fault: {name}: {fault.detail}")
            fault.recovered_s = room.wait_hands(1, size.recovery_timeout_s)
            restart_killed(deployment)
        except Exception as error:  # the run goes on to the checks, which report it
            fault.error = f"{type(error).__name__}: {error}"
            say(f"  fault: {name}: {fault.error}")
            with contextlib.suppress(Exception):
                restart_killed(deployment)
    return done


@dataclass
class StreamReport:
    completed: int = 0
    voided: int = 0
    timed_out: int = 0
    problems: list[str] = field(default_factory=list)
    void_problems: list[str] = field(default_factory=list)
    card_problems: list[str] = field(default_factory=list)
    shuffles: dict[tuple[str, int], tuple[str, list[str]]] = field(default_factory=dict)


def read_table(client: redis.cluster.RedisCluster, table_id: str, report: StreamReport) -> None:
    """One table's stream: every hand ends or is voided; a voided hand gives every seat back
    what it held when the hand started (its next hand's starting stack, or what it left
    with, plus any chips it added since); no card dealt twice."""
    records = RedisEventStore(client, codec.registry()).read(table_stream(table_id))
    hands: dict[int, list[object]] = {}
    current: int | None = None
    owed: dict[int, int] = {}  # seat -> the stack a void must have left it
    started_stacks: dict[int, int] = {}
    for record in records:
        event = codec.from_message(record.message)
        if isinstance(event, ev.HandStarted):
            for seat, stack in zip(event.seats, event.stacks, strict=True):
                if seat in owed and owed.pop(seat) != stack:
                    report.void_problems.append(
                        f"{table_id} hand {event.hand}: seat {seat} starts with {stack}, "
                        "not what the voided hand before left it"
                    )
            owed.clear()
            started_stacks = dict(zip(event.seats, event.stacks, strict=True))
            current = event.hand
            hands[current] = []
        elif isinstance(event, ev.ChipsAdded) and event.seat in owed:
            owed[event.seat] += event.amount
        elif isinstance(event, ev.PlayerLeft) and event.seat in owed:
            if owed.pop(event.seat) != event.stack:
                report.void_problems.append(
                    f"{table_id}: seat {event.seat} left a voided hand with {event.stack}, "
                    "not its stake back"
                )
        elif isinstance(event, ev.TimedOut):
            report.timed_out += 1
        elif (
            isinstance(event, events_pb2.ShuffleRevealed)
            and event.hand in hands
            and not event.unused
        ):  # (a shuffle withdrawn or never dealt is revealed unused: not the hand's deck)
            report.shuffles[(table_id, event.hand)] = (event.shuffle_id, [])
        if current is not None:
            hands[current].append(event)
        if isinstance(event, ev.HandVoided):
            owed = dict(started_stacks)
        if isinstance(event, ev.HandEnded | ev.HandVoided):
            current = None
    for number, events in hands.items():
        last = events[-1]
        if isinstance(last, ev.HandEnded):
            report.completed += 1
        elif isinstance(last, ev.HandVoided):
            report.voided += 1
        else:
            report.problems.append(f"{table_id} hand {number} neither ended nor voided")
        dealt = dealt_once(number, events, report.card_problems)
        if isinstance(last, ev.HandEnded) and (table_id, number) in report.shuffles:
            report.shuffles[(table_id, number)] = (report.shuffles[(table_id, number)][0], dealt)
    for seat in owed:
        report.void_problems.append(f"{table_id}: seat {seat} never got a voided hand's stake")


def duplicate_commands(deployment: Deployment) -> tuple[int, list[str]]:
    """Every event stream on every master: versions 1..n contiguous, and each idempotency key
    one run of consecutive entries (a command applied twice would show as a second run).
    Returns how many streams were read and what is wrong."""
    problems: list[str] = []
    streams = 0
    masters = [n for n in deployment.cluster.nodes if n.running]
    for node in masters:
        if deployment.cluster.role(node) != "master":
            continue
        client = redis.Redis(host=node.host, port=node.port)
        try:
            for key in client.scan_iter(match="*:events", count=1000, _type="STREAM"):
                entries = cast(list[tuple[bytes, dict[bytes, bytes]]], client.xrange(key))
                if not entries or b"idem" not in entries[0][1]:
                    continue
                streams += 1
                versions = [int(entry_id.split(b"-")[0]) for entry_id, _ in entries]
                if versions != list(range(1, len(entries) + 1)):
                    problems.append(f"{key.decode()}: versions not 1..{len(entries)}")
                runs = [k for k, _ in itertools.groupby(f.get(b"idem") for _, f in entries)]
                # A command sent without a key (opening an account) has nothing to repeat.
                twice = [k for k, c in Counter(runs).items() if c > 1 and k]
                if twice:
                    shown = ", ".join(
                        f"{(k or b'').decode()} at versions "
                        + "/".join(
                            str(v)
                            for v, (_, f) in zip(versions, entries, strict=True)
                            if f.get(b"idem") == k
                        )
                        for k in twice[:3]
                    )
                    problems.append(
                        f"{key.decode()}: {len(twice)} command(s) applied twice ({shown})"
                    )
        finally:
            client.close()
    return streams, problems


def run_checks(deployment: Deployment, room: Room, faults: list[Fault]) -> list[Check]:
    checks: list[Check] = []
    client = deployment.cluster.client()
    report = StreamReport()
    try:
        for table_id in room.tables:
            read_table(client, table_id, report)
    finally:
        client.close()
    checks.append(
        Check(
            "every fault injected and every table played on after it",
            all(f.recovered_s is not None for f in faults),
            "; ".join(
                f"{f.name}: "
                + (
                    f"hands on after {f.recovered_s:.1f} s"
                    if f.recovered_s is not None
                    else f.error
                )
                for f in faults
            ),
        )
    )
    checks.append(
        Check(
            "every hand completed or was voided",
            not report.problems and report.completed > 0,
            f"{report.completed} completed, {report.voided} voided, {report.timed_out} "
            f"decisions timed out; " + ("; ".join(report.problems[:5]) or "none open"),
        )
    )
    checks.append(
        Check(
            "a voided hand returned every stake",
            not report.void_problems,
            "; ".join(report.void_problems[:5])
            or (
                f"{report.voided} voided, every seat given back its stake"
                if report.voided
                else "no hand was voided: nothing to return"
            ),
        )
    )
    mismatched = []
    for (table_id, hand), (shuffle_id, dealt) in report.shuffles.items():
        if not dealt:
            continue
        request = dealer_pb2.GetShuffleRequest(shuffle_id=shuffle_id)
        info = retried(lambda request=request: room.dealer.GetShuffle(request)).shuffle  # type: ignore[misc]
        by_dealer = [c for step in info.steps if step.HasField("deal") for c in step.deal.cards]
        if Counter(by_dealer) != Counter(dealt):
            extra = sorted((Counter(by_dealer) - Counter(dealt)).elements())
            missing = sorted((Counter(dealt) - Counter(by_dealer)).elements())
            # Which of the dealer's deals no event holds: their purpose and recipient say
            # which step of the hand asked for them.
            unheld = [
                f"{dealer_pb2.DealPurpose.Name(step.deal.purpose)} to {step.deal.recipient or '-'}"
                f" {list(step.deal.cards)}"
                for step in info.steps
                if step.HasField("deal") and set(step.deal.cards) <= set(extra)
            ]
            # (the dealer shows the cards only once closed, to the table identity: its status
            # and count tell a record that lacks deals from one not shown)
            status = dealer_pb2.ShuffleStatus.Name(info.status)
            mismatched.append(
                f"{table_id} hand {hand} (shuffle {shuffle_id}, {status}, {info.dealt_count} "
                f"dealt): the dealer also dealt {extra} ({'; '.join(unheld)}), the table also "
                f"holds {missing}"
            )
    compared = sum(1 for _, dealt in report.shuffles.values() if dealt)
    checks.append(
        Check(
            "no card dealt twice; the dealer dealt exactly the table's cards",
            not report.card_problems and not mismatched and compared > 0,
            "; ".join([*report.card_problems[:3], *mismatched[:3]])
            or f"{compared} completed hands compared with the dealer's record",
        )
    )
    streams, twice = duplicate_commands(deployment)
    checks.append(
        Check(
            "no command applied twice (idempotency keys, every stream)",
            not twice and streams > 0,
            "; ".join(twice[:5]) or f"{streams} streams read on the masters",
        )
    )
    escrow = {t: room.balance(f"table:{t}:{CURRENCY}") for t in room.tables}
    held = sum(
        room.balance(f"player:{p}:{CURRENCY}") for players in room.bots.values() for p in players
    )
    checks.append(
        Check(
            "chips conserved",
            held == room.deposited and not any(escrow.values()),
            f"bots hold {held} of {room.deposited} deposited; escrow left "
            f"{sum(escrow.values())} over {len(escrow)} tables",
        )
    )
    audit = retried(lambda: room.ledger.Audit(ledger_pb2.AuditRequest()))
    checks.append(
        Check(
            "ledger audit clean",
            audit.clean,
            "clean" if audit.clean else "; ".join(str(d) for d in list(audit.differences)[:3]),
        )
    )
    dead = [name for name, alive in deployment.processes() if not alive]
    checks.append(
        Check(
            "every process still running (the killed ones started again)",
            not dead,
            ", ".join(dead) or f"{sum(1 for _ in deployment.processes())} processes up",
        )
    )
    return checks


@dataclass
class Outcome:
    passed: bool
    faults: list[Fault]
    checks: list[Check]
    seconds: float
    log_dir: Path


def run(size: Size, log_dir: Path | None = None, out: Callable[[str], None] = print) -> Outcome:
    """The whole test: start, play through the faults, check, stop. Logs go to `log_dir`
    (a new temporary directory when None, removed when everything passed)."""
    own_dir = log_dir is None
    logs = Path(tempfile.mkdtemp(prefix="cluster-test-")) if log_dir is None else log_dir
    logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    deployment = Deployment(logs)
    room = Room(deployment, size)
    faults: list[Fault] = []
    checks: list[Check] = []
    try:
        out(
            "cluster test: Redis Cluster 3 masters + 3 replicas, 3 table replicas, "
            "2 evaluators, 2 dealers, 2 ledgers, 2 workers; "
            f"{size.tables} bot tables x {size.seats} seats"
        )
        deployment.start()
        out(f"  started in {time.monotonic() - started:.1f} s (logs in {logs})")
        room.open()
        faults = run_faults(deployment, room, size, out)
        try:
            room.wait_hands(size.hands_after, size.recovery_timeout_s)
        except TimeoutError as error:
            faults.append(Fault("playing on after the faults", error=str(error)))
        room.leave()
        checks = run_checks(deployment, room, faults)
    except Exception as error:
        checks.append(Check("the run itself", False, f"{type(error).__name__}: {error}"))
    finally:
        room.close()
        deployment.close()
    passed = bool(checks) and all(c.ok for c in checks)
    seconds = time.monotonic() - started
    out("checks:")
    for check in checks:
        out(f"  {'PASS' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
    verdict = "PASS" if passed else f"FAIL ({sum(not c.ok for c in checks)} check(s) failed)"
    out(f"cluster test {verdict} in {seconds:.0f} s, load_1m {os.getloadavg()[0]:.1f}")
    if passed and own_dir:
        shutil.rmtree(logs, ignore_errors=True)
    elif not passed:
        out(f"  logs kept in {logs}")
    return Outcome(passed, faults, checks, seconds, logs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.harness.cluster_test")
    parser.add_argument("--tables", type=int, default=DEFAULT.tables, help="bot tables")
    parser.add_argument("--seats", type=int, default=DEFAULT.seats, help="bots per table")
    parser.add_argument(
        "--hands-after", type=int, default=DEFAULT.hands_after, help="hands after the faults"
    )
    parser.add_argument("--logs", type=Path, help="keep the processes' logs here")
    args = parser.parse_args(argv)
    if args.tables < 1 or not 2 <= args.seats <= 9 or args.hands_after < 0:
        parser.error("use --tables >= 1, --seats 2..9, --hands-after >= 0")
    size = Size(tables=args.tables, seats=args.seats, hands_after=args.hands_after)
    return 0 if run(size, args.logs).passed else 1


if __name__ == "__main__":
    sys.exit(main())
