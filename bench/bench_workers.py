"""Workers and bots: timeout accuracy under load, bot decisions/s, full-stack bot hands/s.

1. Timeout accuracy: a real worker process (`python -m services.workers`) fires deadlines for
   100 tables (each table's decisions one after another) against a gRPC TableService that
   records when each ApplyTimeout arrives. Lateness = arrival - deadline; "early" counts
   arrivals before the deadline (must be 0). Twice, side by side: as ETA tasks (poker's
   deadlines) and swept (a real-time game's: no task, the worker's 25 ms look at the swept
   index).
2. Bot decisions/s per policy: `choose(view, rng)` over decision points collected from
   engine-only hands (pure, in this process).
3. Full-stack bot hands/s: three-handed NLHE tables of built-in bots (equity, tight, random)
   through the real table service, dealer and ledger, each decision a Celery task on one
   worker process (GetTableView -> policy -> Act as the bot), for a fixed time.

Everything shares this 2-core machine with other test runs, so numbers are noisy.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

from bench.percentiles import percentile
from croupier.table.v1 import table_pb2
from services.bots.engine_ranker import EvaluatorHandRanker
from services.bots.engine_view import to_bot_view, to_command
from services.bots.identity import bot_id
from services.bots.policies import NAMES, make_policy
from services.bots.ranker import default_ranker
from services.bots.simulation.deals import SeededDeck
from services.bots.simulation.presets import preset
from services.bots.view import BotView
from services.games.poker.commands import SitDown
from services.games.poker.playout import play_hand
from services.games.poker.reducer import apply_all
from services.games.poker.rules import decide
from services.games.poker.state import new_table
from services.scheduling.scheduler import CeleryScheduler
from services.shared import auth
from services.shared.redis_embedded import start_private_redis
from services.workers.settings import WorkerSettings
from tests.integration.table.conftest import KEY, create_table, view_of
from tests.integration.workers.recording_table import start_recording_table
from tests.integration.workers.table_stack import table_stack
from tests.integration.workers.worker_process import WorkerProcess, worker_env


def _worker_env(redis_url: str, table_port: int) -> dict[str, str]:
    """The tests' worker environment, with eight task slots."""
    return worker_env(redis_url, f"127.0.0.1:{table_port}", KEY, concurrency=8)


def timeout_accuracy(quick: bool, swept: bool = False) -> dict[str, object]:
    tables, per_table = 100, (2 if quick else 5)
    redis = start_private_redis()
    table, server, port = start_recording_table(KEY)
    log = Path(tempfile.mkdtemp(prefix="bench-workers-")) / "worker.log"
    worker = WorkerProcess(_worker_env(redis.url, port), log).start()
    try:
        scheduler = CeleryScheduler.from_settings(WorkerSettings(redis_url=redis.url).scheduling)
        rng = random.Random(1)
        dues: dict[tuple[str, int, int], float] = {}

        def request(t: int, n: int, due: float) -> None:
            decision = (f"bench-{t}", 1, n)
            dues[decision] = due
            table.request(decision, due)
            scheduler.schedule_timeout(*decision, deadline_unix_ms=round(due * 1000), swept=swept)

        # Like a table: the next decision is requested once the previous one timed out.
        for t in range(tables):
            request(t, 1, time.time() + 1.0 + rng.uniform(0, 1.0))
        done: set[tuple[str, int, int]] = set()
        end = time.time() + 30
        while time.time() < end and len(done) < tables * per_table:
            for application in list(table.applied):
                if application.decision in done:
                    continue
                done.add(application.decision)
                name, _, n = application.decision
                if n < per_table:
                    request(int(name.split("-")[1]), n + 1, time.time() + rng.uniform(0.3, 0.8))
            time.sleep(0.005)
        lateness = [(a.at - dues[a.decision]) * 1000 for a in table.applied]
        return {
            "measure": f"{'swept ' if swept else ''}timeout lateness (ms)",
            "tables": tables,
            "timeouts": len(dues),
            "applied": len(lateness),
            "early": len(table.early),
            "p50": round(statistics.median(lateness), 1),
            "p99": round(percentile(lateness, 0.99), 1),
            "max": round(max(lateness), 1),
        }
    finally:
        worker.stop()
        server.stop(0)
        redis.close()


def _decision_points(game: str, hands: int) -> list[BotView]:
    chosen = preset(game)
    views: list[BotView] = []
    policy = make_policy("random", default_ranker())
    rng = random.Random(3)
    for deal in range(hands):
        state = new_table(chosen.config(6, deal % 6, 100))
        for seat in range(6):
            state = apply_all(state, decide(state, SitDown(seat, f"p{seat}", 200)))

        def collect(s, legal):
            view = to_bot_view(s, legal)
            views.append(view)
            return to_command(s, legal.seat, policy.choose(view, rng))

        play_hand(state, collect, SeededDeck(9, deal), EvaluatorHandRanker())
    return views


def decisions_per_second(quick: bool) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    ranker = default_ranker()
    for game in ("nlhe", "spit", "six-card"):
        views = _decision_points(game, 10 if quick else 30)
        for name in NAMES:
            policy = make_policy(name, ranker)
            rng = random.Random(5)
            sample = views if name != "equity" else views[: (40 if quick else 150)]
            started = time.perf_counter()
            for view in sample:
                policy.choose(view, rng)
            seconds = time.perf_counter() - started
            rows.append(
                {
                    "measure": "bot decisions/s",
                    "game": game,
                    "policy": name,
                    "decisions": len(sample),
                    "per_s": round(len(sample) / seconds, 1),
                }
            )
    return rows


def full_stack_hands(quick: bool) -> dict[str, object]:
    tables, seconds = (3, 15.0) if quick else (10, 30.0)
    redis = start_private_redis()
    settings = WorkerSettings(redis_url=redis.url, bot_delay=0.0)
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    with table_stack(redis.url, "ledger-bench", scheduler) as platform:
        log = Path(tempfile.mkdtemp(prefix="bench-workers-")) / "worker.log"
        worker = WorkerProcess(_worker_env(redis.url, platform.port), log).start()
        house = platform.table("house", auth.Role.ADMIN)
        try:
            ids = []
            for _ in range(tables):
                table_id = create_table(platform, seats=3)
                ids.append(table_id)
            started = time.time()
            threads = [
                threading.Thread(target=_seat_bots, args=(platform, table_id)) for table_id in ids
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            time.sleep(max(0.0, started + seconds - time.time()))
            elapsed = time.time() - started
            hands = sum(max(0, view_of(house, t).hand_number - 1) for t in ids)
        finally:
            worker.stop()
    redis.close()
    return {
        "measure": "full-stack bot hands/s",
        "tables": tables,
        "seats": 3,
        "seconds": round(elapsed, 1),
        "hands": hands,
        "per_s": round(hands / elapsed, 2),
    }


def _seat_bots(platform, table_id: str) -> None:
    for seat_no, policy in enumerate(("equity", "tight", "random")):
        bot = bot_id(policy, uuid.uuid4().hex[:6], 0.0)
        platform.fund(bot, 10_000)
        platform.table(bot, auth.Role.BOT).JoinTable(
            table_pb2.JoinTableRequest(
                table_id=table_id, seat=seat_no, buy_in=10_000, idempotency_key=f"join-{bot}"
            )
        )


def run(quick: bool) -> list[dict[str, object]]:
    return [
        timeout_accuracy(quick),
        timeout_accuracy(quick, swept=True),
        *decisions_per_second(quick),
        full_stack_hands(quick),
    ]
