"""A bot table with no action clock keeps playing when the Celery worker is killed holding a
bot's turn (the sweeper sends the turn again from the bot-turn index), and when the table
service is killed and comes back 8 s later (the bot's task retries for longer than that).
The table's own recovery sweep is turned off here: only the workers may save these tables.

Real processes killed with SIGKILL: the worker (`python -m services.workers`) in both tests,
the table service (`python -m services.table`) in the second.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.table.v1 import table_pb2
from services.bots.identity import bot_id
from services.scheduling.scheduler import CeleryScheduler
from services.shared import auth
from services.shared.eventstore import RedisEventStore
from services.table import codec
from services.table.application import table_stream
from services.workers.settings import WorkerSettings
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, Platform, create_table
from tests.integration.table.process_stack import stack

from .table_stack import table_stack
from .worker_process import WorkerProcess, worker_env

BOT_DELAY = 2.0  # a bot's turn task waits this long in the worker before it plays
PROGRESS_TIMEOUT_S = 60.0
BUY_IN = 2000


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


def seat_bots(platform: Platform, table_id: str) -> list[str]:
    """Two tight bots with 1,000 big blinds each (so that neither goes broke soon)."""
    bots = [bot_id("tight", f"{uuid.uuid4().hex[:6]}-{n}", 0.5) for n in (0, 1)]
    for seat_no, bot in enumerate(bots):
        platform.fund(bot, BUY_IN)
        platform.table(bot, auth.Role.BOT).JoinTable(
            table_pb2.JoinTableRequest(
                table_id=table_id, seat=seat_no, buy_in=BUY_IN, idempotency_key=f"join-{bot}"
            )
        )
    return bots


_BOT_MOVE_LINE = re.compile(r"Task croupier\.workers\.bot_move\[([^\]]+)\] (\w+)")


def holding_a_bot_turn(worker: WorkerProcess) -> bool:
    """The worker has received a bot turn it has not played yet (it waits BOT_DELAY first):
    some bot_move task's last line in the log is its "received"."""
    last: dict[str, str] = {}
    for task_id, what in _BOT_MOVE_LINE.findall(worker.log_path.read_text(errors="replace")):
        last[task_id] = what
    return "received" in last.values()


def test_a_bot_turn_held_by_a_killed_worker_is_sent_again_and_the_bots_play_on(
    redis_url: str, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> None:
    settings = WorkerSettings(redis_url=broker.url, bot_delay=BOT_DELAY, bot_resend=2.0)
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    store = RedisEventStore(redis.Redis.from_url(redis_url), codec.registry())
    with table_stack(redis_url, key_prefix, scheduler, recovery_interval_s=3600) as platform:
        env = worker_env(
            broker.url, f"127.0.0.1:{platform.port}", KEY, sweep_interval=0.5, bot_resend=2.0
        )
        first = WorkerProcess(env, tmp_path / "first.log").start()
        try:
            table_id = create_table(platform, seats=2)
            seat_bots(platform, table_id)
            stream = table_stream(table_id)
            start = store.version(stream)
            wait_until(lambda: store.version(stream) > start + 6, PROGRESS_TIMEOUT_S, "bot play")
            wait_until(lambda: holding_a_bot_turn(first), 30, "a bot turn held by the worker")
            first.kill()
        finally:
            first.kill()
        stalled_at = store.version(stream)
        second = WorkerProcess(env, tmp_path / "second.log").start()
        try:
            wait_until(
                lambda: store.version(stream) > stalled_at + 6,
                PROGRESS_TIMEOUT_S,
                "bot play after the kill",
                lambda: second.log_path.read_text()[-3000:],
            )
            assert "bot turns resent" in second.log_path.read_text()
        finally:
            second.stop()


OUTAGE_S = 8.0  # how long the table service stays down (a restart takes 5-30 s)


def test_bot_turns_outlast_a_table_service_restart(
    redis_url: str, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> None:
    scheduler_env = {
        "REDIS_URL": broker.url,  # the broker; the table's events stay on redis_url
        "CROUPIER_TABLE_REDIS_URL": redis_url,
        "CROUPIER_TABLE_SCHEDULER": "celery",
        "CROUPIER_WORKERS_BOT_DELAY": "1",
        # Neither the bot-turn index's re-send nor the table's recovery may rescue the table:
        # only the held task's own retries.
        "CROUPIER_WORKERS_BOT_RESEND": "600",
        "CROUPIER_TABLE_RECOVERY_INTERVAL_S": "3600",
    }
    with stack(redis_url, key_prefix, tmp_path, **scheduler_env) as running:
        env = worker_env(
            broker.url,
            running.table.address,
            KEY,
            f"127.0.0.1:{running.platform.ledger_port}",
            sweep_interval=0.5,
            bot_resend=600,
        )
        worker = WorkerProcess(env, tmp_path / "worker.log").start()
        try:
            table_id = create_table(running.platform, seats=2)
            seat_bots(running.platform, table_id)
            start = running.version(table_id)
            wait_until(
                lambda: running.version(table_id) > start + 6, PROGRESS_TIMEOUT_S, "bot play"
            )
            wait_until(lambda: holding_a_bot_turn(worker), 30, "a bot turn held by the worker")
            running.table.kill()
            stalled_at = running.version(table_id)
            time.sleep(OUTAGE_S)  # the outage itself, not a wait for anything
            running.table.start()
            wait_until(
                lambda: running.version(table_id) > stalled_at + 6,
                PROGRESS_TIMEOUT_S,
                "bot play after the restart",
                lambda: worker.log_path.read_text()[-3000:],
            )
        finally:
            worker.kill()
