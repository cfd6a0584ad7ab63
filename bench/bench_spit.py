"""Spit through the whole stack: a play's latency to the opponent's stream, and plays/s.

The real services run as their own processes (dealer, ledger, table: bench_table's `Stack`)
on a private Redis. This process is the players: every table has two fast Spit bots (reaction
time 0), each with its own gRPC channel and token, its own batched WatchTable stream and its
own Play stream, each keeping a mirror of the table from its stream
(services/games/spit/mirror.py) and choosing its moves with the bot policy
(services/games/spit/bot.py), exactly as the real-time bot does; one move in flight per
player. The client is one asyncio event loop (grpc.aio), so its own CPU is small next to the
services'; its CPU is a column.

Each row sets its games up (not measured), lets them play WARM_UP_S, then measures a window:

- play_to_opponent p50/p99/mean (ms): a PlayCard sent -> the event at the version its answer
  names arrives on the OPPONENT's watch stream (the issue's "command -> event on the
  opponent's stream"; client-side delays included);
- plays_per_s: PlayCards accepted per second over all games (saturation at 100 games);
- moves_per_s (every accepted move: plays, moves into spaces, ready, slaps), refused_pct
  (moves refused: lost races, and moves sent on a mirror the table had already moved past);
- deals and games finished in the window; cpu_ms_per_play for the table, the client and
  the whole stack; load_1m as the window started.

With reaction time 0 and one move in flight per player, every row is a closed loop at
saturation: its latency includes the queueing of 2 x games outstanding moves (Little's law).
`--reaction-ms LOW,HIGH` paces the bots instead (each waits a uniform draw in that window
before it chooses again from its newest mirror, as the real-time bot does; the wait is not in
the latency): the latency of a play when the table is not saturated. `--instances N` runs N
table-service processes with the games sharded by table (game n created, played and watched
on instance n % N, bench_table's `Stack`): the scale-out design's rows.

`scheduler` is the table's CROUPIER_TABLE_SCHEDULER: `celery` (the default: Spit's ready,
slap and stall deadlines written into the workers' swept index at every change, one Lua call,
no task; no worker runs here, so nothing fires them) or `none` (no trigger at all): side by
side, what the real-time deadlines cost a play.

Beside them, in the same run, the plumbing floor: bench_grpc_servers' stream-act+append+watch
(one streamed Act, one append through the table's own event store, one stream message each)
at the same concurrency (two streams per game), on the services' own sync server
(`sync+croupier`: floor_sync_*) and on grpc.aio (`aio`: floor_aio_*): its acts/s and p99, and
moves_over_floor_* (the game's moves/s over the floor's acts/s: how much of the floor Spit
reaches).

    python -m bench --only spit          (or: python -m bench.bench_spit --games 10)
    python -m bench.bench_spit --games 100 --instances 2 --reaction-ms 300,1200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc

from bench import bench_grpc_servers
from bench.bench_table import Client, Stack
from bench.percentiles import percentile
from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2
from services.bots import spit_wire
from services.games.spit import bot, mirror
from services.games.spit.moves import PlayCard
from services.games.spit.state import SpitState
from services.games.spit.views import view_for
from services.shared import auth
from services.shared.redis_embedded import EmbeddedRedis, find_server_binary

A = table_pb2
WARM_UP_S = 2.0
SETUP_CONCURRENCY = 10
BUY_IN = 1_000


@dataclass
class Tally:
    plays: int = 0
    moves: int = 0
    refused: int = 0
    deals: int = 0
    games: int = 0
    latencies_ms: list[float] = field(default_factory=list)


class Player:
    """One seat's client: its watch stream keeps its mirror; its Play stream sends moves."""

    def __init__(self, game: Game, seat: int, client: Client) -> None:
        self.game = game
        self.seat = seat
        self.client = client
        self.state: SpitState | None = None
        self.version = 0
        self.arrivals: dict[int, float] = {}
        self.changed = asyncio.Event()
        self.wait_for = 0
        self.keys = 0

    async def watch(self) -> None:
        stream = self.client.table.WatchTable(
            A.WatchTableRequest(table_id=self.game.table_id, batch=True),
            metadata=self.client.metadata,
        )
        async for message in stream:
            now = time.perf_counter()
            if message.HasField("view"):
                view = message.view
                self.state = mirror.from_view(
                    spit_wire.view_from_proto(view.spit, self.seat),
                    spit_wire.config_of(view.spit),
                )
                self.version = view.version
            else:
                state = self.state
                for event in message.events.events:
                    self.version = max(self.version, event.version)
                    self.arrivals[event.version] = now
                    if state is not None and event.WhichOneof("event") == "spit":
                        record = spit_wire.event_from_proto(event.spit)
                        if record is not None:
                            state = mirror.apply(state, record)
                        kind = event.spit.WhichOneof("event")
                        if self.seat == 0 and self.game.measuring:
                            self.game.tally.deals += kind == "deal_ended"
                            self.game.tally.games += kind == "game_ended"
                self.state = state
            self.changed.set()

    async def play(self) -> None:
        play = self.client.table.Play(metadata=self.client.metadata)
        while True:
            await self.changed.wait()
            self.changed.clear()
            if self.state is None or self.version < self.wait_for:
                continue
            choice = bot.choose(view_for(self.state, self.seat))
            if choice is None:
                continue
            low, high = self.game.reaction_ms
            if high > 0:
                # (a paced bot: it reacts, then chooses again from its newest mirror)
                await asyncio.sleep(self.game.rng.uniform(low, high) / 1000)
                state = self.state
                choice = bot.choose(view_for(state, self.seat)) if state else None
                if choice is None:
                    continue
            chosen_at = self.version
            self.keys += 1
            request = A.ActRequest(
                table_id=self.game.table_id,
                idempotency_key=f"s{self.seat}-{self.keys}",
                spit=spit_wire.move_to_proto(choice.move, choice.precondition),
            )
            started = time.perf_counter()
            await play.write(A.PlayRequest(act=request))
            answer = await play.read()
            if not isinstance(answer, A.PlayResponse):
                return
            if answer.WhichOneof("result") != "act":
                self.game.count(refused=True)
                # Chosen on a mirror the table had moved past: choose again once newer.
                self.wait_for = chosen_at + 1
            else:
                self.wait_for = answer.act.version
                self.game.count(refused=False)
                if isinstance(choice.move, PlayCard):
                    self.game.sent.append((started, answer.act.version, 1 - self.seat))
            self.changed.set()  # look again: the mirror may have moved meanwhile


class Game:
    def __init__(self, table_id: str, reaction_ms: tuple[int, int] = (0, 0)) -> None:
        self.table_id = table_id
        self.reaction_ms = reaction_ms
        self.rng = random.Random(table_id)
        self.players: list[Player] = []
        self.tally = Tally()
        self.sent: list[tuple[float, int, int]] = []  # (sent at, version, opponent seat)
        self.measuring = False

    def count(self, refused: bool) -> None:
        if not self.measuring:
            return
        if refused:
            self.tally.refused += 1
        else:
            self.tally.moves += 1

    def latencies(self, start: float, end: float) -> list[float]:
        found = []
        for sent_at, version, opponent in self.sent:
            if not start <= sent_at <= end:
                continue
            arrivals = self.players[opponent].arrivals
            seen = min((at for v, at in arrivals.items() if v >= version), default=None)
            if seen is not None:
                found.append((seen - sent_at) * 1000)
        return found


async def _open(
    stack: Stack, n: int, ledger: Any, bank: Any, admin: Client, reaction_ms: tuple[int, int]
) -> Game:
    table_id = f"s{uuid.uuid4().hex[:12]}"
    await admin.table.CreateTable(
        A.CreateTableRequest(
            table_id=table_id,
            idempotency_key="create",
            options=A.TableOptions(
                seats=2,
                min_buy_in=1,
                max_buy_in=BUY_IN,
                spit=spit_pb2.SpitOptions(stake=1),
            ),
        ),
        metadata=admin.metadata,
    )
    game = Game(table_id, reaction_ms)
    for seat in (0, 1):
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
                amount=chips_pb2.ChipAmount(currency="CHIP", amount=BUY_IN),
            ),
            metadata=bank,
        )
        client = Client(stack.table_port(n), name, auth.Role.PLAYER)
        await client.table.JoinTable(
            A.JoinTableRequest(table_id=table_id, seat=seat, buy_in=BUY_IN, idempotency_key="j"),
            metadata=client.metadata,
        )
        game.players.append(Player(game, seat, client))
    return game


async def _row(
    stack: Stack, games: int, seconds: float, reaction_ms: tuple[int, int] = (0, 0)
) -> dict[str, object]:
    ledger_client = Client(stack.ports["ledger"], "bench", auth.Role.SERVICE)
    ledger = ledger_pb2_grpc.LedgerServiceStub(ledger_client.channel)
    # (a table is created on the instance that will play it)
    admins = [Client(stack.table_port(i), "house", auth.Role.ADMIN) for i in range(stack.instances)]
    limit = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(n: int) -> Game:
        async with limit:
            admin = admins[n % stack.instances]
            return await _open(stack, n, ledger, ledger_client.metadata, admin, reaction_ms)

    room = list(await asyncio.gather(*(one(n) for n in range(games))))
    tasks = [
        asyncio.create_task(job)
        for game in room
        for player in game.players
        for job in (player.watch(), player.play())
    ]
    try:
        await asyncio.sleep(WARM_UP_S)
        load = os.getloadavg()[0]
        cpu_before = stack.cpu()
        for game in room:
            game.measuring = True
        start = time.perf_counter()
        await asyncio.sleep(seconds)
        end = time.perf_counter()
        for game in room:
            game.measuring = False
        cpu_after = stack.cpu()
        await asyncio.sleep(0.5)  # the window's last events reach the opponents
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for game in room:
            for player in game.players:
                await player.client.channel.close()
        await ledger_client.channel.close()
        for admin in admins:
            await admin.channel.close()
    latencies = [ms for game in room for ms in game.latencies(start, end)]
    plays = len(latencies)
    moves = sum(g.tally.moves for g in room)
    refused = sum(g.tally.refused for g in room)
    used = {role: cpu_after[role] - cpu_before.get(role, 0.0) for role in cpu_after}
    window = end - start

    def per_play(value: float) -> float:
        return value * 1000 / plays if plays else 0.0

    return {
        "games": games,
        "table_instances": stack.instances,
        "reaction_ms": f"{reaction_ms[0]}-{reaction_ms[1]}",
        "seconds": round(window, 1),
        "plays": plays,
        "plays_per_s": plays / window,
        "moves_per_s": moves / window,
        "refused_pct": 100 * refused / max(1, moves + refused),
        "deals": sum(g.tally.deals for g in room),
        "games_ended": sum(g.tally.games for g in room),
        "play_to_opponent_p50_ms": percentile(latencies, 0.50),
        "play_to_opponent_p99_ms": percentile(latencies, 0.99),
        "play_to_opponent_mean_ms": statistics.fmean(latencies) if latencies else 0.0,
        "cpu_ms_per_play_table": per_play(used.get("table", 0.0)),
        "cpu_ms_per_play_client": per_play(used.get("client", 0.0)),
        "cpu_ms_per_play_all": per_play(sum(used.values())),
        "load_1m": round(load, 1),
    }


FLOOR_VARIANTS = ("sync+croupier", "aio")


async def _floors(
    concurrencies: list[int], seconds: float
) -> dict[tuple[str, int], dict[str, object]]:
    """bench_grpc_servers' stream-act+append+watch (one streamed Act, one append, one stream
    message each) on each server variant at each concurrency: the plumbing floor."""
    token = auth.issue_token(bench_grpc_servers.KEY, "bench", auth.Role.SERVICE, 7200)
    metadata = grpc.aio.Metadata(*auth.bearer_metadata(token))
    binary = find_server_binary()
    if binary is None:
        raise RuntimeError("no redis-server/valkey-server found for the plumbing floor")
    redis_server = EmbeddedRedis(binary).start()
    floors = {}
    try:
        for variant in FLOOR_VARIANTS:
            server = bench_grpc_servers.ServerProcess(variant, redis_server.url)
            try:
                for concurrency in concurrencies:
                    floors[(variant, concurrency)] = await bench_grpc_servers._measure(
                        server, "stream-act+append+watch", concurrency, 1.0, seconds, metadata
                    )
            finally:
                server.close()
    finally:
        redis_server.close()
    return floors


async def _measure(
    rows: tuple[int, ...],
    seconds: float,
    schedulers: tuple[str, ...] = ("celery",),
    instances: int = 1,
    reaction_ms: tuple[int, int] = (0, 0),
) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for scheduler in schedulers:
        stack = Stack(instances=instances, table_env={"CROUPIER_TABLE_SCHEDULER": scheduler})
        try:
            for games in rows:
                row = await _row(stack, games, seconds, reaction_ms)
                out.append({"scheduler": scheduler, **row})
        finally:
            stack.close()
    # Two players per game, each with its own stream of moves: as many "tables" of the floor.
    floors = await _floors([2 * games for games in rows], min(seconds, 5.0))
    for row in out:
        games = int(row["games"])  # type: ignore[call-overload]
        for variant in FLOOR_VARIANTS:
            floor = floors[(variant, 2 * games)]
            name = variant.replace("+croupier", "").replace("+", "_")
            acts = float(floor["calls_per_s"])  # type: ignore[arg-type]
            row[f"floor_{name}_acts_per_s"] = acts
            row[f"floor_{name}_p99_ms"] = floor["p99_ms"]
            row[f"moves_over_floor_{name}"] = float(row["moves_per_s"]) / acts if acts else 0.0  # type: ignore[arg-type]
    return out


def measure(
    rows: tuple[int, ...] = (1, 10, 100),
    seconds: float = 10.0,
    schedulers: tuple[str, ...] = ("celery",),
    instances: int = 1,
    reaction_ms: tuple[int, int] = (0, 0),
) -> list[dict[str, object]]:
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(_measure(rows, seconds, schedulers, instances, reaction_ms))
    finally:
        loop.close()


def run(quick: bool) -> list[dict[str, object]]:
    return measure(seconds=3.0) if quick else measure()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_spit")
    parser.add_argument("--games", type=int, action="append", help="repeatable (1, 10, 100)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--scheduler", action="append", choices=("celery", "none"), help="repeatable (celery)"
    )
    parser.add_argument("--instances", type=int, default=1, help="table processes (1)")
    parser.add_argument(
        "--reaction-ms", default="0,0", help="LOW,HIGH: paced bots (0,0: reaction time 0)"
    )
    args = parser.parse_args(argv)
    schedulers = tuple(args.scheduler or ("celery",))
    low, _, high = args.reaction_ms.partition(",")
    reaction = (int(low), int(high or low))
    if args.instances < 1 or not 0 <= reaction[0] <= reaction[1]:
        parser.error("--instances must be 1 or more and --reaction-ms LOW,HIGH with LOW <= HIGH")
    rows = tuple(args.games or (1, 10, 100))
    for row in measure(rows, args.seconds, schedulers, args.instances, reaction):
        print(json.dumps(row))


if __name__ == "__main__":
    main()
