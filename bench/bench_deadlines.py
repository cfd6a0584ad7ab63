"""Scheduling a game's short, frequently replaced deadlines: the cost per move.

Spit renames its stall deadline ("<deal>/stall/<moves>", one per seat that can play) on every
card move, so the table hands the scheduler two new decisions per move. Measured on a private
redis-server, per move (two seats):
- `celery`: `CeleryScheduler.schedule_timeouts` as the table calls it today: one index
  replacement (the two previous decisions dropped, the two new ones added) and two Celery
  ETA tasks sent.
- `index only`: the index replacement alone, what a sweeper-fired deadline would cost (the
  design docs/perf/table.md proposes for deadlines this short-lived).
"""

from __future__ import annotations

import statistics
import time

import redis

from bench.percentiles import percentile
from services.scheduling.deadline_index import RedisDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.scheduling.scheduler import CeleryScheduler
from services.workers.settings import WorkerSettings
from tests.fixtures.redis_server import RedisServer


def _moves(count: int) -> list[list[tuple[int, int, int]]]:
    due = int(time.time() * 1000) + 600_000
    return [[(1, 2 * n + 1, due + n), (1, 2 * n + 2, due + n)] for n in range(count)]


def _row(variant: str, samples: list[float]) -> dict[str, object]:
    return {
        "variant": variant,
        "moves": len(samples),
        "moves_per_s": len(samples) / sum(samples),
        "p50_us": statistics.median(samples) * 1e6,
        "p99_us": percentile(samples, 99) * 1e6,
    }


def run(quick: bool) -> list[dict[str, object]]:
    count = 200 if quick else 2_000
    with RedisServer.private_server() as server:
        scheduler = CeleryScheduler.from_settings(WorkerSettings(redis_url=server.url).scheduling)
        celery: list[float] = []
        for move in _moves(count):
            started = time.perf_counter()
            scheduler.schedule_timeouts("bench-celery", move)
            celery.append(time.perf_counter() - started)
        client = redis.Redis.from_url(server.url)
        index = RedisDeadlineIndex(client, key="bench:deadlines")
        only: list[float] = []
        for move in _moves(count):
            deadlines = [Deadline.from_unix_ms("bench-index", h, a, ms) for h, a, ms in move]
            started = time.perf_counter()
            index.replace_table("bench-index", deadlines)
            only.append(time.perf_counter() - started)
        client.close()
    return [_row("celery (index + 2 tasks)", celery), _row("index only", only)]
