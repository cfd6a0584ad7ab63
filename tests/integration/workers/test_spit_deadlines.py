"""Spit's own deadlines through a REAL Celery worker process: the ready time and the stall
(two decisions open at once, one per seat, each with its own window), fired by the workers'
timeout machinery on the real table service, which applies the game's default."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import events_pb2, table_pb2
from services.scheduling.scheduler import CeleryScheduler
from services.shared import auth
from services.workers.settings import WorkerSettings
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, seat, view_of

from .table_stack import StackPlatform, table_stack
from .worker_process import WorkerProcess, running_worker, worker_env

pytestmark = pytest.mark.integration
SWEEP_INTERVAL = 0.5
SWEEP_GRACE = 0.2


@pytest.fixture(scope="module")
def redis_for_spit() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture(scope="module")
def settings(redis_for_spit: RedisServer) -> WorkerSettings:
    return WorkerSettings(
        redis_url=redis_for_spit.url,
        auth_key=KEY,
        sweep_interval=SWEEP_INTERVAL,
        sweep_grace=SWEEP_GRACE,
        bot_delay=0.0,
    )


@pytest.fixture(scope="module")
def platform(settings: WorkerSettings) -> Iterator[StackPlatform]:
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    with table_stack(settings.redis_url, "ledger-spit", scheduler) as handle:
        yield handle


@pytest.fixture(scope="module")
def worker(
    settings: WorkerSettings, platform: StackPlatform, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    env = worker_env(
        settings.redis_url,
        f"127.0.0.1:{platform.port}",
        KEY,
        f"127.0.0.1:{platform.ledger_port}",
        sweep_interval=SWEEP_INTERVAL,
        sweep_grace=SWEEP_GRACE,
    )
    with running_worker(env, tmp_path_factory.mktemp("worker")) as process:
        yield process


def test_the_ready_time_and_the_stall_are_fired_by_the_workers(
    platform: StackPlatform, worker: WorkerProcess
) -> None:
    table_id = f"spit-{uuid.uuid4().hex[:10]}"
    options = spit_pb2.SpitOptions(ready_ms=400, stall_ms=400)
    house = platform.table("house", auth.Role.ADMIN)
    house.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key="create",
            options=table_pb2.TableOptions(min_buy_in=10, max_buy_in=100, spit=options),
        )
    )
    for seat_no in (0, 1):
        seat(platform, table_id, f"p{seat_no}-{table_id}", seat_no, 50)
    start = view_of(house, table_id).version
    # Nobody says ready and nobody plays: the workers time both players' ready out (two
    # decisions at once), then, as nobody plays, the stall makes the game spit.
    stream = house.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=start), timeout=60
    )
    ready: list[events_pb2.TableEvent] = []
    stalled: list[events_pb2.TableEvent] = []
    spat_after_stall = 0
    try:
        for message in stream:
            event = message.event
            if event.WhichOneof("event") != "spit":
                continue
            kind = event.spit.WhichOneof("event")
            if kind == "player_ready":
                ready.append(event)
            elif kind == "stalled":
                stalled.append(event)
            elif kind == "spat" and stalled:
                spat_after_stall += 1
            if spat_after_stall or (stalled and not_playable(event)):
                break
    finally:
        stream.cancel()
    assert sorted(e.spit.player_ready.seat for e in ready) == [0, 1]
    assert all(e.spit.player_ready.timed_out for e in ready)
    assert stalled, "the stall never fired"
    assert spat_after_stall or view_of(house, table_id).spit.phase != spit_pb2.PHASE_PLAYING


def not_playable(event: events_pb2.TableEvent) -> bool:
    """A stall that ends the deal (nothing left to spit) instead of spitting."""
    return event.spit.WhichOneof("event") in ("deal_over", "deal_ended", "game_ended")
