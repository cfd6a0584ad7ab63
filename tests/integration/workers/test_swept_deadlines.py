"""Spit's deadlines, swept (no task per deadline): a REAL table-service process and a REAL
worker process (`python -m services.workers`) over a private broker Redis, both killed with
SIGKILL in turn. Each deadline fires once and never before the time the table recorded for
it (the timed-out event's own record time against the decision's deadline, both the table's
clock), a decision made in time leaves the index at once, and a deadline pending when the
worker or the table is killed fires once either is back.

The tables ask for the ready time only (`stall_ms` 0, no slap before a deal ends), so the
deadlines are exactly the two players' ready decisions."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import events_pb2, table_pb2
from services.scheduling.deadline_index import DEFAULT_KEY, SWEPT_KEY, RedisDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.shared import auth
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, seat
from tests.integration.table.process_stack import Stack, stack

from .worker_process import WorkerProcess, worker_env

pytestmark = pytest.mark.integration
READY_MS = 3_000  # (long enough that no deadline passes before a test kills a process)
FIRE_TIMEOUT_S = 60.0


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture
def running(
    redis_url: str, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> Iterator[Stack]:
    env = {
        "REDIS_URL": broker.url,  # the broker and the indexes; the events stay on redis_url
        "CROUPIER_TABLE_REDIS_URL": redis_url,
        "CROUPIER_TABLE_SCHEDULER": "celery",
    }
    with stack(redis_url, key_prefix, tmp_path, **env) as handle:
        yield handle


def new_worker(running: Stack, broker: RedisServer, log: Path) -> WorkerProcess:
    env = worker_env(broker.url, running.table.address, KEY)
    return WorkerProcess(env, log)


def spit_table_waiting_for_ready(running: Stack) -> str:
    table_id = f"spit-{uuid.uuid4().hex[:10]}"
    platform = running.platform
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key="create",
            options=table_pb2.TableOptions(
                min_buy_in=10,
                max_buy_in=100,
                spit=spit_pb2.SpitOptions(ready_ms=READY_MS, stall_ms=0),
            ),
        )
    )
    for seat_no in (0, 1):
        seat(platform, table_id, f"p{seat_no}-{table_id}", seat_no, 50)
    return table_id


def recorded(running: Stack, table_id: str) -> list[events_pb2.TableEvent]:
    """Every event of the table as a watcher receives it, up to its current version."""
    house = running.platform.table("house", auth.Role.ADMIN)
    last = house.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view.version
    events: list[events_pb2.TableEvent] = []
    stream = house.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=1), timeout=30
    )
    try:
        for message in stream:
            events.append(message.event)
            if message.event.version >= last:
                break
    finally:
        stream.cancel()
    return events


def ready_deadlines(events: list[events_pb2.TableEvent]) -> dict[int, int]:
    """Each seat's ready deadline (Unix ms) as the table recorded its decision."""
    return {
        e.action_requested.seat: e.action_requested.deadline_unix_ms
        for e in events
        if e.WhichOneof("event") == "action_requested"
        and e.action_requested.game_deadline.endswith("/ready")
    }


def timed_out(events: list[events_pb2.TableEvent]) -> list[tuple[int, int]]:
    """(seat, recorded at, Unix ms) of every ready the table applied as a timeout."""
    return [
        (e.spit.player_ready.seat, e.recorded_at_ms)
        for e in events
        if e.WhichOneof("event") == "spit"
        and e.spit.HasField("player_ready")
        and e.spit.player_ready.timed_out
    ]


def swept_members(broker: RedisServer, table_id: str) -> set[bytes]:
    client = redis.Redis.from_url(broker.url)
    try:
        return set(client.smembers(f"{SWEPT_KEY}:table:{table_id}"))  # type: ignore[arg-type]
    finally:
        client.close()


def task_index_members(broker: RedisServer, table_id: str) -> int:
    client = redis.Redis.from_url(broker.url)
    try:
        return int(client.scard(f"{DEFAULT_KEY}:table:{table_id}"))
    finally:
        client.close()


def assert_fired_once_never_early(running: Stack, table_id: str, seats: list[int]) -> None:
    events = recorded(running, table_id)
    deadlines = ready_deadlines(events)
    fired = timed_out(events)
    assert sorted(s for s, _ in fired) == seats, fired
    for seat_no, at in fired:
        assert at >= deadlines[seat_no], (
            f"seat {seat_no} timed out {deadlines[seat_no] - at} ms early"
        )


def test_a_ready_made_in_time_leaves_the_index_and_the_other_fires_once_never_early(
    running: Stack, broker: RedisServer, tmp_path: Path
) -> None:
    worker = new_worker(running, broker, tmp_path / "worker.log").start()
    client = redis.Redis.from_url(broker.url)
    index = RedisDeadlineIndex(client, SWEPT_KEY)
    try:
        table_id = spit_table_waiting_for_ready(running)
        wait_until(lambda: len(swept_members(broker, table_id)) == 2, 30, "both deadlines swept")
        assert task_index_members(broker, table_id) == 0  # no task-index entry, so no task
        player = running.platform.table(f"p0-{table_id}")
        player.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                idempotency_key="ready",
                spit=spit_pb2.SpitMove(ready=spit_pb2.Ready()),
            )
        )
        # Seat 0's decision is made: only seat 1's stays in the index.
        wait_until(lambda: len(swept_members(broker, table_id)) == 1, 30, "seat 0's entry gone")
        # As if a worker's clock ran ahead: seat 1's entry due now, long before the table's
        # deadline. The worker fires it at once, the table refuses (not due), it stays.
        seat1 = decision_of(running, table_id, 1)
        index.arm(Deadline(table_id, seat1.hand, seat1.action_number, time.time()))
        wait_until(lambda: not swept_members(broker, table_id), FIRE_TIMEOUT_S, "seat 1 fired")
        assert_fired_once_never_early(running, table_id, [1])
        # A duplicate trigger (a replayed entry for the decision already timed out): the
        # worker fires it, the table changes nothing, the entry leaves.
        index.arm(Deadline.from_unix_ms(table_id, seat1.hand, seat1.action_number, 1))
        wait_until(lambda: not swept_members(broker, table_id), 30, "the duplicate swept")
        assert_fired_once_never_early(running, table_id, [1])
    finally:
        client.close()
        worker.kill()


def decision_of(running: Stack, table_id: str, seat_no: int) -> events_pb2.ActionRequested:
    """The table's last ready decision for `seat_no`."""
    return [
        e.action_requested
        for e in recorded(running, table_id)
        if e.WhichOneof("event") == "action_requested" and e.action_requested.seat == seat_no
    ][-1]


def test_deadlines_pending_when_the_worker_is_killed_fire_once_when_a_new_one_starts(
    running: Stack, broker: RedisServer, tmp_path: Path
) -> None:
    first = new_worker(running, broker, tmp_path / "first.log").start()
    table_id = spit_table_waiting_for_ready(running)
    wait_until(lambda: len(swept_members(broker, table_id)) == 2, 30, "both deadlines swept")
    first.kill()
    # Past both deadlines with no worker: nothing fires (only the workers time players out).
    deadlines = ready_deadlines(recorded(running, table_id))
    wait_until(
        lambda: time.time() * 1000 > max(deadlines.values()) + 500, 30, "the deadlines passed"
    )
    assert timed_out(recorded(running, table_id)) == []
    second = new_worker(running, broker, tmp_path / "second.log").start()
    try:
        wait_until(
            lambda: not swept_members(broker, table_id),
            FIRE_TIMEOUT_S,
            "both deadlines fired by the new worker",
            lambda: second.log_path.read_text()[-3000:],
        )
        assert_fired_once_never_early(running, table_id, [0, 1])
    finally:
        second.kill()


def test_deadlines_pending_when_the_table_is_killed_fire_once_it_is_back(
    running: Stack, broker: RedisServer, tmp_path: Path
) -> None:
    worker = new_worker(running, broker, tmp_path / "worker.log").start()
    try:
        table_id = spit_table_waiting_for_ready(running)
        wait_until(lambda: len(swept_members(broker, table_id)) == 2, 30, "both deadlines swept")
        running.table.kill()
        deadlines = ready_deadlines(
            [e for e in _events_from_store(running, table_id)]  # (the table is down)
        )
        wait_until(
            lambda: time.time() * 1000 > max(deadlines.values()) + 1_000,
            30,
            "the deadlines passed with the table down",
        )
        assert len(swept_members(broker, table_id)) == 2  # failed looks keep them
        running.table.start()
        wait_until(
            lambda: not swept_members(broker, table_id),
            FIRE_TIMEOUT_S,
            "both deadlines fired after the restart",
            lambda: worker.log_path.read_text()[-3000:],
        )
        assert_fired_once_never_early(running, table_id, [0, 1])
    finally:
        worker.kill()


def _events_from_store(running: Stack, table_id: str) -> list[events_pb2.TableEvent]:
    """The table's ActionRequested records read from the event store itself, as TableEvents
    (enough for `ready_deadlines`), while the table service is down."""
    out: list[events_pb2.TableEvent] = []
    for event in running.events(table_id):
        if isinstance(event, events_pb2.ActionRequested):
            wrapped = events_pb2.TableEvent()
            wrapped.action_requested.CopyFrom(event)
            out.append(wrapped)
    return out
