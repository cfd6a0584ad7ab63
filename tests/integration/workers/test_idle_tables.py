"""Idle tables cost the table service nothing: past a worker's first sweep (its one scan of
every table, for indexes that went missing) the sweeper reads only the heads of its indexes,
never a table, however many tables exist.

Real worker process (`python -m services.workers`, default sweep and rebuild settings), the
real table service in this process, whose RPCs are counted by its metrics.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from prometheus_client import REGISTRY

from services.scheduling.deadline_index import RedisDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.scheduling.scheduler import CeleryScheduler
from services.workers.settings import WorkerSettings
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, create_table, seat

from .table_stack import table_stack
from .worker_process import running_worker, worker_env

IDLE_TABLES = 40
# Longer than the sweeper's old rebuild interval (10 s), which read every table's view.
WATCH_S = 12.0
SERVICE = "croupier.table.v1.TableService"


def table_reads() -> float:
    """ListTables and GetTableView calls the table service has answered (any status)."""
    total = 0.0
    for metric in REGISTRY.collect():
        if metric.name != "croupier_grpc_requests":
            continue
        for sample in metric.samples:
            labels = sample.labels
            read = labels.get("grpc_method") in ("ListTables", "GetTableView")
            if sample.name.endswith("_total") and labels.get("grpc_service") == SERVICE and read:
                total += sample.value
    return total


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture
def tables_redis() -> Iterator[RedisServer]:
    """A Redis of this test's own: the table service's recovery drives every table it finds
    in its Redis, and another test's table left stuck there would be read through the RPCs
    counted here."""
    with RedisServer.private_server() as server:
        yield server


def test_the_sweeper_reads_no_table_after_its_first_sweep(
    tables_redis: RedisServer, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> None:
    scheduler = CeleryScheduler.from_settings(WorkerSettings(redis_url=broker.url).scheduling)
    with table_stack(tables_redis.url, key_prefix, scheduler) as platform:
        for n in range(IDLE_TABLES):
            table_id = create_table(platform, seats=2)
            if n % 2:  # half of them wait for a human with no clock, half for players
                seat(platform, table_id, f"p{n}", 0, 200)
                seat(platform, table_id, f"q{n}", 1, 200)
        env = worker_env(broker.url, f"127.0.0.1:{platform.port}", KEY)
        del env["CROUPIER_WORKERS_CONCURRENCY"]  # (the defaults, as deployed)
        before = table_reads()
        with running_worker(env, tmp_path):
            # The first sweep scans every table once (ListTables, then each view).
            scan = IDLE_TABLES + 1
            wait_until(lambda: table_reads() >= before + scan, 60, "the first sweep's scan")
            scanned = table_reads()
            # Deadlines only the sweeper can fire (no Celery task was sent for them), due
            # one after another for WATCH_S: when the last is resolved, the sweeper has swept
            # all along.
            index = RedisDeadlineIndex(redis.Redis.from_url(broker.url))
            start = time.time() + 1.0
            due = [start + WATCH_S * i / 5 for i in range(6)]
            for i, at in enumerate(due):
                index.add(Deadline(f"no-such-table-{i}", 1, 1, at))
            wait_until(lambda: index.size() == 0, WATCH_S + 30, "every deadline swept")
            assert table_reads() == scanned  # not one table read since the first sweep
