"""Requested Spit bots outlive the worker process that hosts them: the worker is killed with
SIGKILL in the middle of a bot-vs-bot game, and a new worker's bot host takes both bots over
once their leases run out and plays on to the end of a game, on the real table, dealer and
ledger; the chips add up."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2
from services.bots.identity import bot_buy_in
from services.scheduling.scheduler import CeleryScheduler
from services.shared import auth
from services.workers.bot_host import LEASE_PREFIX
from services.workers.settings import WorkerSettings
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY

from .table_stack import StackPlatform, table_stack
from .test_spit_bots import first_game_end
from .worker_process import WorkerProcess, worker_env

pytestmark = pytest.mark.integration
STAKE = 10
BOT_CHIPS = bot_buy_in(0, 0, 0, 0, STAKE)


@pytest.fixture(scope="module")
def redis_for_takeover() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


@pytest.fixture(scope="module")
def platform(redis_for_takeover: RedisServer) -> Iterator[StackPlatform]:
    settings = WorkerSettings(redis_url=redis_for_takeover.url, auth_key=KEY)
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    with table_stack(settings.redis_url, "ledger-spit-takeover", scheduler) as handle:
        yield handle


def version_of(platform: StackPlatform, table_id: str) -> int:
    view = (
        platform.table("house", auth.Role.ADMIN)
        .GetTableView(table_pb2.GetTableViewRequest(table_id=table_id))
        .view
    )
    return view.version


def test_a_killed_workers_spit_bots_are_taken_over_and_finish_their_game(
    platform: StackPlatform, redis_for_takeover: RedisServer, tmp_path: Path
) -> None:
    env = worker_env(
        redis_for_takeover.url,
        f"127.0.0.1:{platform.port}",
        KEY,
        f"127.0.0.1:{platform.ledger_port}",
    )
    first = WorkerProcess(env, tmp_path / "first.log").start()
    table_id = f"spit-{uuid.uuid4().hex[:10]}"
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key="create",
            # Stall and slap times far beyond the test: only the bots can move the game.
            options=table_pb2.TableOptions(
                spit=spit_pb2.SpitOptions(stake=STAKE, slap_ms=600_000, stall_ms=0)
            ),
            # 0.97: a reaction of 18-72 ms, so the game is still on when the worker dies.
            bots=[table_pb2.BotSeat(policy="spit", difficulty=0.97)] * 2,
        )
    )
    try:
        # Seated, ready and playing.
        wait_until(
            lambda: version_of(platform, table_id) > 30,
            60,
            "the bots playing",
            lambda: first.log_path.read_text()[-3000:],
        )
    finally:
        first.kill()
    stopped_at = version_of(platform, table_id)
    second = WorkerProcess(env, tmp_path / "second.log").start()
    try:
        # (a game ended before the kill does not count: the next one, played by the new host)
        ended, played = first_game_end(platform, table_id, stopped_at + 1)
        assert played[0] + played[1] > 0, played
        # Both bots' leases are held again (by the new worker's host: the old one is dead).
        client = redis.Redis.from_url(redis_for_takeover.url)
        try:
            assert len(client.keys(LEASE_PREFIX + "*")) == 2
        finally:
            client.close()
        assert sum(ended.stacks) == 2 * BOT_CHIPS
        assert platform.balance(f"table:{table_id}:CHIP") == 2 * BOT_CHIPS
    finally:
        second.kill()
