"""The swept index written from an event loop (services/scheduling/swept_writer.py) on a real
Redis: each table ends with exactly its newest deadlines (a moved one is moved, a dropped one
leaves), submissions from the loop and from other threads alike, many of them written in
fewer script calls than submissions, what is pending at close is written, and a closed
writer takes no more."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest
import redis
import redis.asyncio as aioredis

from services.scheduling.deadline_index import DEFAULT_KEY, SWEPT_KEY, RedisDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.scheduling.scheduler import CeleryScheduler
from services.scheduling.settings import SchedulingSettings
from services.scheduling.swept_writer import SweptWriter
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration
KEY = "{test:swept}"
WAIT_S = 30.0


@pytest.fixture(scope="module")
def server() -> Iterator[RedisServer]:
    with RedisServer.private_server() as running:
        yield running


@pytest.fixture
def index(server: RedisServer) -> Iterator[RedisDeadlineIndex]:
    client = redis.Redis.from_url(server.url)
    client.flushdb()
    yield RedisDeadlineIndex(client, KEY)
    client.close()


def in_index(index: RedisDeadlineIndex) -> set[tuple[str, int, int, float]]:
    return {
        (d.table_id, d.hand_number, d.action_number, d.due_at)
        for d in index.due(float("inf"), 100_000)
    }


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def test_each_table_ends_with_its_newest_deadlines_in_fewer_writes(
    server: RedisServer, index: RedisDeadlineIndex
) -> None:
    async def run() -> tuple[int, int]:
        client = aioredis.Redis.from_url(server.url)
        writer = SweptWriter(client, KEY).start()
        submits = 0
        try:
            # 50 tables, each restarting its stall (decision 3) 40 times, from the loop...
            for restart in range(40):
                for t in range(50):
                    due = 1_000_000 + restart
                    writer.submit(f"t{t}", [Deadline(f"t{t}", 1, 3, due)])
                    submits += 1
                if restart % 10 == 0:
                    await asyncio.sleep(0)  # (let the writer take a batch now and then)

            # ... and from another thread: table t0 asks for a second decision.
            def elsewhere() -> None:
                writer.submit("t0", [Deadline("t0", 1, 3, 2_000_000), Deadline("t0", 1, 4, 5)])

            thread = threading.Thread(target=elsewhere)
            thread.start()
            thread.join()
            submits += 1
            expected = {("t0", 1, 3, 2_000_000.0), ("t0", 1, 4, 5.0)} | {
                (f"t{t}", 1, 3, 1_000_039.0) for t in range(1, 50)
            }
            await until(lambda: in_index(index) == expected, "every table's newest deadlines")
            # Then t0's stall is made (only decision 4 is left) and t1 owes nothing: both
            # leave the index, written by close.
            writer.submit("t0", [Deadline("t0", 1, 4, 5)])
            writer.submit("t1", [])
            await writer.close()
            # A closed writer takes nothing (its scheduler writes the index itself then).
            assert writer.submit("t2", []) is False
            return writer.writes, submits
        finally:
            await client.aclose()

    writes, submits = asyncio.run(run())
    left = in_index(index)
    assert ("t0", 1, 4, 5.0) in left
    assert not any(t == "t0" and n == 3 for t, _, n, _ in left)
    assert not any(t == "t1" for t, _, _, _ in left)
    assert len(left) == 1 + 48
    assert writes < submits / 10, f"{writes} script calls for {submits} submissions"


def test_a_real_time_deadline_sent_again_by_recovery_is_armed_in_the_swept_index_only(
    server: RedisServer,
) -> None:
    # (the table's recovery: `trigger_current` sends a real-time table's open deadlines
    # again with swept=True; the swept sweeper fires them, so no Celery task is sent)
    client = redis.Redis.from_url(server.url)
    client.flushdb()
    scheduler = CeleryScheduler.from_settings(SchedulingSettings(redis_url=server.url))
    try:
        scheduler.schedule_timeout("t9", 2, 5, 9_000_000, only_if_lost=True, swept=True)
        scheduler.schedule_timeout("t9", 2, 5, 9_000_000, only_if_lost=True, swept=True)
        swept = RedisDeadlineIndex(client, SWEPT_KEY)
        assert [(d.table_id, d.action_number) for d in swept.due(float("inf"), 10)] == [("t9", 5)]
        assert RedisDeadlineIndex(client, DEFAULT_KEY).size() == 0
        assert client.llen("celery") == 0  # (Celery's default queue on the broker: no task)
        # A turn-based table's deadline still goes the task way.
        scheduler.schedule_timeout("t8", 1, 1, 9_000_000)
        assert RedisDeadlineIndex(client, DEFAULT_KEY).size() == 1
        assert client.llen("celery") == 1  # (its ETA task, on the same queue)
    finally:
        client.close()
