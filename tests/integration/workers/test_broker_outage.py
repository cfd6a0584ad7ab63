"""The Celery worker lives through broker outages: its redis-server killed with SIGKILL and
started again three times while the worker holds an unacknowledged ETA task (what made it
exit: kombu's "Unrecoverable error: AttributeError('NoneType' object has no attribute
'hostname')"), after which a real table's timeouts still fire.

Real processes: the worker (`python -m services.workers`) and the broker's redis-server; the
table service (with its dealer and ledger) runs in this process on another Redis.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from services.games.poker import events as ev
from services.scheduling.scheduler import CeleryScheduler
from services.shared.eventstore import RedisEventStore
from services.table import codec
from services.table.application import table_stream
from services.workers.settings import WorkerSettings
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, create_table, seat

from .table_stack import table_stack
from .worker_process import running_worker, worker_env

OUTAGES = 3


def at_least(count: Callable[[str], int], text: str, times: int) -> bool:
    return count(text) >= times


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


def test_the_worker_outlives_broker_outages_and_fires_timeouts_after_them(
    redis_url: str, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> None:
    settings = WorkerSettings(redis_url=broker.url)
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, codec.registry())
    with table_stack(redis_url, key_prefix, scheduler) as platform:
        env = worker_env(
            broker.url, f"127.0.0.1:{platform.port}", KEY, sweep_interval=0.5, sweep_grace=0.2
        )
        with running_worker(env, tmp_path) as worker:
            log = worker.log_path

            def count(text: str) -> int:
                return log.read_text(errors="replace").count(text)

            def tail() -> str:
                return log.read_text(errors="replace")[-3000:]

            def received_timeouts(_: str) -> int:
                lines = log.read_text(errors="replace").splitlines()
                return sum(1 for line in lines if "fire_timeout[" in line and "received" in line)

            def noticed(_: str = "") -> int:
                # A loss met while consuming is "Connection to broker lost"; one met while the
                # consumer (re)connects, "consumer: Cannot connect to": either is the outage.
                return count("Connection to broker lost") + count("consumer: Cannot connect to")

            for outage in range(1, OUTAGES + 1):
                # A timeout ten minutes away: the worker holds its task, unacknowledged.
                due_ms = int((time.time() + 600) * 1000)
                scheduler.schedule_timeout(f"held-{outage}", 1, 1, due_ms)
                received = functools.partial(at_least, received_timeouts, "", outage)
                wait_until(received, 60, "the held task received", tail)
                before = noticed()
                broker.kill()
                lost = functools.partial(at_least, noticed, "", before + 1)
                wait_until(lost, 60, f"the worker noticing outage {outage}", tail)
                broker.restart()
            assert worker.process is not None and worker.process.poll() is None

            # After the outages: a table with a 1.5 s clock; nobody acts.
            table_id = create_table(platform, seats=2, action_time_ms=1500)
            seat(platform, table_id, "alice", 0, 200)
            seat(platform, table_id, "bob", 1, 200)

            def someone_timed_out() -> bool:
                events = [codec.from_message(r.message) for r in store.read(table_stream(table_id))]
                return any(isinstance(e, ev.TimedOut) for e in events)

            wait_until(someone_timed_out, 90, "a timeout fired", tail)
    client.close()
