"""The workers' bots put their entropy into every hand they are seated at, not only the hands
in which they have a turn: a bot in the big blind that everyone folds to has no turn, yet its
commitment to the next shuffles and its reveal reach the table, so no hand of a bot-only
table is dealt without a seated bot's entropy and `croupier verify --strict` passes.

A real Celery worker process (`python -m services.workers`) plays the bots; the real table
service, dealer and ledger run in this process over loopback.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from typer.testing import CliRunner

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2
from services.bots.identity import bot_id
from services.client.cli import app
from services.scheduling.scheduler import CeleryScheduler
from services.sdk import shuffle_id
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import RedisEventStore
from services.table import codec
from services.table.application import table_stream
from services.workers.settings import WorkerSettings
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, create_table, view_of

from .table_stack import StackPlatform, table_stack
from .worker_process import running_worker, worker_env

pytestmark = pytest.mark.integration
BOTS = 3
BUY_IN = 2000
MAX_HANDS = 30  # hands played at most while waiting for one in which a bot had no turn


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


def seat_bots(platform: StackPlatform, table_id: str) -> list[str]:
    bots = [bot_id("tight", f"{uuid.uuid4().hex[:6]}-{n}", 0.5) for n in range(BOTS)]
    for seat_no, bot in enumerate(bots):
        platform.fund(bot, BUY_IN)
        platform.table(bot, auth.Role.BOT).JoinTable(
            table_pb2.JoinTableRequest(
                table_id=table_id, seat=seat_no, buy_in=BUY_IN, idempotency_key=f"join-{bot}"
            )
        )
    return bots


def turnless_hands(store: RedisEventStore, table_id: str, finished: int) -> list[int]:
    """The finished hands in which some seated bot was never asked to decide."""
    asked: dict[int, set[int]] = {}
    for record in store.read(table_stream(table_id)):
        message = record.message
        if isinstance(message, events_pb2.ActionRequested):
            asked.setdefault(message.hand, set()).add(message.seat)
    return [h for h in range(1, finished + 1) if len(asked.get(h, set())) < BOTS]


def test_every_seated_bot_contributes_to_every_hand_turn_or_no_turn(
    redis_url: str, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> None:
    # Bots think 0.3 s before each move; the tables wait up to 10 s for entropy (a window
    # ends early once every seated bot has answered, so a busy machine only waits longer).
    settings = WorkerSettings(redis_url=broker.url, bot_delay=0.3)
    scheduler = CeleryScheduler.from_settings(settings.scheduling)
    store = RedisEventStore(redis.Redis.from_url(redis_url), codec.registry())
    with table_stack(redis_url, key_prefix, scheduler, entropy_windows=(10000,) * 2) as platform:
        env = worker_env(broker.url, f"127.0.0.1:{platform.port}", KEY)
        with running_worker(env, tmp_path):
            table_id = create_table(platform, seats=BOTS, min_players_to_start=BOTS)
            bots = seat_bots(platform, table_id)
            admin = platform.table("house", auth.Role.ADMIN)

            def finished() -> int:
                view = view_of(admin, table_id)
                return view.hand_number - (1 if view.hand_in_progress else 0)

            wait_until(
                lambda: (
                    bool(turnless_hands(store, table_id, finished())) or finished() >= MAX_HANDS
                ),
                240,
                "a hand in which a seated bot had no turn",
            )
            hands = finished()
            assert turnless_hands(store, table_id, hands), "every bot had a turn in every hand"
        dealer = dealer_pb2_grpc.DealerServiceStub(
            connect(
                f"127.0.0.1:{platform.dealer_port}",
                auth.issue_token(KEY, "w", auth.Role.PLAYER, 600),
            )
        )
        env = {
            "CROUPIER_TABLE_TARGET": f"127.0.0.1:{platform.port}",
            "CROUPIER_DEALER_TARGET": f"127.0.0.1:{platform.dealer_port}",
            "CROUPIER_LEDGER_TARGET": f"127.0.0.1:{platform.ledger_port}",
            "CROUPIER_AUTH_KEY": KEY,
            "CROUPIER_PLAYER": "",
            "CROUPIER_TOKEN": "",
        }
        for hand in range(1, hands + 1):
            info = dealer.GetShuffle(
                dealer_pb2.GetShuffleRequest(shuffle_id=shuffle_id(table_id, hand))
            ).shuffle
            contributors = sorted(c.contributor for c in info.contributions)
            assert contributors == sorted(bots), f"hand {hand}: entropy from {contributors}"
            verified = CliRunner().invoke(
                app,
                ["--as", "watcher", "verify", "--table", table_id, "--hand", str(hand), "--strict"],
                env=env,
            )
            assert verified.exit_code == 0, f"hand {hand}: {verified.output}"
            assert "WARNING" not in verified.output, verified.output
