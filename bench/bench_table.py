"""Full-stack table benchmark: six-handed no-limit hold'em hands/s and Act->event latency.

The real services run as their own processes (`python -m services.dealer|ledger|table`) on a
private Redis (AOF everysec). This process plays: one driver thread per table acts for
whichever seat is to act with a random legal action (weighted: FACING / UNOPENED; bets at
the minimum, never all in, so the deep stacks never bust and every table keeps playing)
through the players' own gRPC clients whenever the table's spectator WatchTable stream
announces a seat's turn (ActionRequested). A turn is one Act, decided from the legal actions
the request carries (no GetTableView per turn, as a bot would play); the same stream
timestamps every event it receives.

Rows: table_instances (table-service processes; tables are sharded over them, table n on
instance n % instances), tables (1, 10, 100 concurrent tables), watchers_per_table (1: the
spectator; 7: the six players keep their own streams open too, as real clients do), hands,
hands_per_s (hands finished by all tables / wall time), acts, acts_per_s, acts_per_hand,
act_to_event p50/p99 in ms (Act sent -> the event at the version the Act returned arrives on
the spectator's stream), cpu_ms_per_hand_table / _all (utime+stime from /proc during the row:
the table instances, and every process of the stack including this client, per finished
hand), load_1m (the machine's load average as the row started). The rows with one table
instance come first; the last ones put the same players and tables on two sharded instances.
Client threads and streams share this process's GIL, so the latency includes client-side
scheduling; see docs/table.md for the discussion.
"""

from __future__ import annotations

import os
import queue
import random
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary

KEY = "bench-table-signing-key-0123456789abcdef"
SEATS = 6
A = table_pb2
# Action weights of the random players: facing a bet most fold or call and few raise; with
# nothing to call most check. (Uniform choice made ~31 actions a hand, raise wars included;
# this mix makes ~12, closer to real six-handed play. Bets are at the minimum, never all in,
# so the deep stacks never bust and every table keeps playing.)
FACING: dict[int, int] = {A.ACTION_FOLD: 45, A.ACTION_CALL: 45, A.ACTION_RAISE: 10}
UNOPENED: dict[int, int] = {A.ACTION_CHECK: 75, A.ACTION_BET: 25}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + 30
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                return
            except grpc.RpcError:
                if time.monotonic() > deadline or process.poll() is not None:
                    process.kill()
                    raise RuntimeError(f"the {name} service did not become healthy") from None
                time.sleep(0.1)


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a process so far (Linux /proc), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Stack:
    """Redis + dealer + ledger + `instances` table services as processes. With several table
    instances, tables are sharded: table n is created on, played and watched through instance
    n % instances (all share one Redis, dealer and ledger)."""

    def __init__(self, instances: int = 1) -> None:
        binary = find_server_binary()
        if binary is None:
            raise RuntimeError("no redis-server/valkey-server found for the table benchmark")
        self.redis = EmbeddedRedis(binary).start()
        self.instances = instances
        self.ports = {name: free_port() for name in ("dealer", "ledger")}
        self.table_ports = [free_port() for _ in range(instances)]
        env = {
            **os.environ,
            "CROUPIER_AUTH_KEY": KEY,
            "REDIS_URL": self.redis.url,
            "CROUPIER_LOG_LEVEL": "warning",
            "CROUPIER_DEALER_KEY": secrets.token_hex(32),
            # One WatchTable stream holds one server thread: room for 100 spectators.
            "CROUPIER_MAX_WORKERS": "256",
        }
        for name, port in self.ports.items():
            env[f"CROUPIER_{name.upper()}_ADDR"] = f"127.0.0.1:{port}"
            env[f"CROUPIER_{name.upper()}_TARGET"] = f"127.0.0.1:{port}"
            env[f"CROUPIER_{name.upper()}_METRICS_PORT"] = "0"
        env["CROUPIER_TABLE_METRICS_PORT"] = "0"
        env["CROUPIER_EVALUATOR_TARGET"] = "127.0.0.1:1"  # the table ranks in process
        self.processes: list[subprocess.Popen[bytes]] = []
        self.channels: list[grpc.Channel] = []
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
        redis_pid = self.redis.pid
        if redis_pid is not None:
            self.roles.append(("redis", redis_pid))
        self.roles.append(("client", os.getpid()))

    def _start(self, name: str, port: int, env: dict[str, str]) -> None:
        process = subprocess.Popen([sys.executable, "-m", f"services.{name}"], env=env)
        self.processes.append(process)
        self.roles.append((name, process.pid))
        _healthy(port, process, name)

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far by each role (all table instances summed)."""
        used: dict[str, float] = {}
        for role, pid in self.roles:
            used[role] = used.get(role, 0.0) + _cpu_seconds(pid)
        return used

    def table_port(self, n: int) -> int:
        return self.table_ports[n % self.instances]

    def channel(
        self, name: str, subject: str, role: auth.Role, port: int | None = None
    ) -> grpc.Channel:
        token = auth.issue_token(KEY, subject, role, 7200)
        channel = connect(f"127.0.0.1:{port or self.ports[name]}", token)
        self.channels.append(channel)
        return channel

    def close(self) -> None:
        for channel in self.channels:
            channel.close()
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        self.redis.close()


class TableDriver:
    """One table: six random players acting over gRPC, and a spectator stream."""

    def __init__(self, stack: Stack, ledger: ledger_pb2_grpc.LedgerServiceStub, n: int) -> None:
        self.table_id = f"b{uuid.uuid4().hex[:12]}"
        port = stack.table_port(n)
        admin = table_pb2_grpc.TableServiceStub(
            stack.channel("table", "house", auth.Role.ADMIN, port)
        )
        admin.CreateTable(
            A.CreateTableRequest(
                table_id=self.table_id,
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
            )
        )
        self.rng = random.Random(n)
        self.stubs: list[table_pb2_grpc.TableServiceStub] = []
        for seat in range(SEATS):
            player = f"{self.table_id}-p{seat}"
            ledger.OpenAccount(
                ledger_pb2.OpenAccountRequest(
                    kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency="CHIP"
                )
            )
            ledger.Deposit(
                ledger_pb2.DepositRequest(
                    idempotency_key=f"fund-{player}",
                    account_id=f"player:{player}:CHIP",
                    amount=chips_pb2.ChipAmount(currency="CHIP", amount=1_000_000),
                )
            )
            stub = table_pb2_grpc.TableServiceStub(
                stack.channel("table", player, auth.Role.PLAYER, port)
            )
            stub.JoinTable(
                A.JoinTableRequest(
                    table_id=self.table_id, seat=seat, buy_in=1_000_000, idempotency_key="join"
                )
            )
            self.stubs.append(stub)
        self.spectator = table_pb2_grpc.TableServiceStub(
            stack.channel("table", f"{self.table_id}-watcher", auth.Role.PLAYER, port)
        )
        self.turns: queue.Queue[events_pb2.ActionRequested] = queue.Queue()
        self.arrivals: dict[int, float] = {}
        self.sent: list[tuple[float, int]] = []
        self.hands_done = 0
        self.errors = 0
        self.player_messages = 0

    def watch(self, stop: threading.Event) -> None:
        stream = self.spectator.WatchTable(A.WatchTableRequest(table_id=self.table_id))
        stop_watch = threading.Thread(target=lambda: (stop.wait(), stream.cancel()), daemon=True)
        stop_watch.start()
        try:
            for message in stream:
                if message.HasField("event"):
                    event = message.event
                    self.arrivals[event.version] = time.perf_counter()
                    kind = event.WhichOneof("event")
                    if kind == "hand_ended":
                        self.hands_done += 1
                    elif kind == "action_requested":
                        self.turns.put(event.action_requested)
                elif message.view.to_act >= 0:
                    # Joined mid-decision: the spectator's view has no legal actions.
                    self.turns.put(events_pb2.ActionRequested(seat=message.view.to_act))
        except grpc.RpcError:
            pass

    def watch_as_player(self, seat: int, stop: threading.Event) -> None:
        """Seat `seat`'s own WatchTable stream, as a real player's client keeps open: read and
        counted only (the turns come from the spectator's stream)."""
        stream = self.stubs[seat].WatchTable(A.WatchTableRequest(table_id=self.table_id))
        stop_watch = threading.Thread(target=lambda: (stop.wait(), stream.cancel()), daemon=True)
        stop_watch.start()
        try:
            for _message in stream:
                self.player_messages += 1
        except grpc.RpcError:
            pass

    def play(self, stop: threading.Event) -> None:
        """Act whenever the stream asks a seat to act, from what the request says it may do
        (GetTableView only when the stream started mid-decision)."""
        while not stop.is_set():
            try:
                turn = self.turns.get(timeout=0.2)
            except queue.Empty:
                continue
            seat, hand, legal = turn.seat, turn.hand, _legal(turn)
            if not legal:
                try:
                    view = (
                        self.stubs[seat]
                        .GetTableView(A.GetTableViewRequest(table_id=self.table_id))
                        .view
                    )
                except grpc.RpcError:
                    self.errors += 1
                    continue
                if view.to_act != seat:
                    continue  # a stale turn (the stream ran ahead of us): wait for the next
                hand, legal = view.hand_number, {a.action: a.min_amount for a in view.legal_actions}
            action, amount = self._choose(legal)
            started = time.perf_counter()
            try:
                response = self.stubs[seat].Act(
                    A.ActRequest(
                        table_id=self.table_id,
                        hand_number=hand,
                        action=action,  # type: ignore[arg-type]
                        amount=amount,
                        idempotency_key=uuid.uuid4().hex,
                    )
                )
                self.sent.append((started, response.version))
            except grpc.RpcError:
                self.errors += 1

    def _choose(self, legal: dict[int, int]) -> tuple[int, int]:
        """A random legal action with a plausible no-limit mix (see FACING / UNOPENED)."""
        mix = FACING if A.ACTION_CALL in legal else UNOPENED
        kinds = [k for k in mix if k in legal]
        if not kinds:  # nothing of the mix is legal: any legal action but all in
            kinds = [k for k in legal if k != A.ACTION_ALL_IN] or [*legal]
        kind = self.rng.choices(kinds, weights=[mix.get(k, 1) for k in kinds])[0]
        if kind in (A.ACTION_BET, A.ACTION_RAISE):
            return kind, legal[kind]
        return kind, 0


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


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _measure(
    stack: Stack, tables: int, seconds: float, players_watch: bool = False
) -> dict[str, object]:
    """One row; with `players_watch` every seated player also keeps its own WatchTable
    stream open (seven watchers a table instead of the spectator alone)."""
    ledger = ledger_pb2_grpc.LedgerServiceStub(stack.channel("ledger", "bench", auth.Role.SERVICE))
    drivers = [TableDriver(stack, ledger, n) for n in range(tables)]
    stop = threading.Event()
    watchers = [threading.Thread(target=d.watch, args=(stop,), daemon=True) for d in drivers]
    if players_watch:
        watchers += [
            threading.Thread(target=d.watch_as_player, args=(seat, stop), daemon=True)
            for d in drivers
            for seat in range(SEATS)
        ]
    for t in watchers:
        t.start()
    time.sleep(0.5)
    start_hands = sum(d.hands_done for d in drivers)
    players = [threading.Thread(target=d.play, args=(stop,), daemon=True) for d in drivers]
    cpu_before = stack.cpu()
    load = os.getloadavg()[0]
    started = time.perf_counter()
    for t in players:
        t.start()
    time.sleep(seconds)
    hands = sum(d.hands_done for d in drivers) - start_hands
    elapsed = time.perf_counter() - started
    cpu_after = stack.cpu()
    stop.set()
    for t in players:
        t.join(timeout=10)
    time.sleep(0.3)
    latencies = [
        (d.arrivals[version] - sent) * 1000
        for d in drivers
        for sent, version in d.sent
        if version in d.arrivals
    ]
    acts = sum(len(d.sent) for d in drivers)
    cpu_ms = {
        role: (cpu_after[role] - cpu_before[role]) * 1000 / hands if hands else float("nan")
        for role in cpu_after
    }
    return {
        "table_instances": stack.instances,
        "tables": tables,
        "watchers_per_table": 1 + SEATS if players_watch else 1,
        "seconds": round(elapsed, 1),
        "hands": hands,
        "hands_per_s": hands / elapsed,
        "acts": acts,
        "acts_per_s": acts / elapsed,
        "acts_per_hand": acts / hands if hands else float("nan"),
        "act_to_event_p50_ms": _percentile(latencies, 0.50),
        "act_to_event_p99_ms": _percentile(latencies, 0.99),
        "mean_ms": statistics.fmean(latencies) if latencies else float("nan"),
        # CPU per finished hand, from /proc (less sensitive to the machine's load than
        # hands/s; the client is this process: the players' and spectators' gRPC calls).
        "cpu_ms_per_hand_table": cpu_ms["table"],
        "cpu_ms_per_hand_all": sum(cpu_ms.values()),
        "load_1m": round(load, 1),
        "errors": sum(d.errors for d in drivers),
    }


def run(quick: bool, instances: int = 2) -> list[dict[str, object]]:
    """One table instance at 1, 10 (and 100) tables; 10 tables with every player watching
    too; then the same players against `instances` sharded table instances at the larger
    table counts (separate rows)."""
    counts: tuple[int, ...] = (1, 10) if quick else (1, 10, 100)
    seconds = 5.0 if quick else 20.0
    # (instances, tables, players_watch) per row
    plan = [(1, t, False) for t in counts] + [(1, 10, True)]
    if instances > 1:
        plan += [(instances, t, False) for t in counts[1:]]
    rows = []
    for n in dict.fromkeys(n for n, _, _ in plan):
        stack = Stack(n)
        try:
            rows += [_measure(stack, t, seconds, w) for m, t, w in plan if m == n]
        finally:
            stack.close()
    return rows


if __name__ == "__main__":
    for result in run(quick="--full" not in sys.argv):
        print(result)
