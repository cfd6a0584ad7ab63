"""`croupier simulate --full-stack` with built-in bots played by a REAL Celery worker: a bot
that busts buys back in, so the run plays every hand asked for instead of stalling (before,
the table stopped once one bot had every chip and the run waited forever), and the chips are
still conserved against the ledger."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.bots.simulation.engine_runner import SimulationSpec
from services.bots.simulation.full_stack import Platform, run_full_stack
from services.scheduling.scheduler import CeleryScheduler
from services.shared import auth
from services.workers.settings import WorkerSettings
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY
from tests.integration.workers.table_stack import StackPlatform, table_stack
from tests.integration.workers.worker_process import running_worker, worker_env

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackPlatform]:
    with RedisServer.private_server() as server:
        settings = WorkerSettings(redis_url=server.url, auth_key=KEY, bot_delay=0.0)
        scheduler = CeleryScheduler.from_settings(settings.scheduling)
        with table_stack(server.url, f"ledger-sim-{uuid.uuid4().hex[:6]}", scheduler) as handle:
            env = worker_env(
                server.url,
                f"127.0.0.1:{handle.port}",
                KEY,
                f"127.0.0.1:{handle.ledger_port}",
            )
            with running_worker(env, tmp_path_factory.mktemp("worker")):
                yield handle


def test_simulate_full_stack_tops_up_busted_bots_and_plays_every_hand(
    platform: StackPlatform,
) -> None:
    # One big blind each: the big blind is all in every hand, so bots bust all the time.
    spec = SimulationSpec(
        game="nlhe", hands=12, seats=3, bots=("random",), stack_units=1, difficulty=0.0
    )
    targets = Platform(
        table_target=f"127.0.0.1:{platform.port}",
        ledger_target=f"127.0.0.1:{platform.ledger_port}",
        auth_key=KEY,
    )
    report = run_full_stack(spec, targets, timeout=120)
    assert report.hands == 12
    assert report.decisions >= 12  # every hand asks at least one bot (workers play them all)
    assert report.timed_out == 0
    assert report.conserved  # escrow empty, every deposited chip back in the bots' accounts
    assert sum(r.net_chips for r in report.results) == 0
    table_id = report.mode.rsplit(" ", 1)[-1]
    assert _top_ups(platform, table_id) > 0  # the scenario really busted someone


def _top_ups(platform: StackPlatform, table_id: str) -> int:
    stream = platform.table("house", auth.Role.ADMIN).WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=1), timeout=5
    )
    count = 0
    try:
        for message in stream:
            if message.HasField("event") and message.event.WhichOneof("event") == "chips_added":
                count += 1
    except grpc.RpcError as exc:
        if exc.code() is not grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
    return count
