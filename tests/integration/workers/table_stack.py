"""The real table service (with its real dealer and ledger) wired to the Celery scheduler.

Mirrors the table tests' `platform` fixture (tests/integration/table/conftest.py) and reuses
its helpers; the one difference is the scheduler: timeouts and bot turns go to Celery.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.shared import auth
from services.shared.eventstore import RedisEventStore
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table import codec
from services.table.ports import SchedulerPort
from services.table.server import build_aio
from services.table.settings import TableSettings
from tests.fixtures.aio_server_thread import AioServerThread
from tests.integration.ledger.conftest import start_ledger
from tests.integration.table.conftest import KEY, Platform


@dataclass
class StackPlatform(Platform):
    """The table tests' `Platform` plus `restart_table()` (see `table_stack`)."""

    restart_table: Callable[[], None] = field(kw_only=True)


@contextmanager
def table_stack(
    redis_url: str,
    namespace: str,
    scheduler: SchedulerPort,
    *,
    recovery_grace_s: float = 1.0,
    recovery_interval_s: float = 0.2,
    entropy_windows: tuple[int, int] = (0, 0),
) -> Iterator[StackPlatform]:
    """Yields the table tests' `Platform`, plus `restart_table()`: stop the table server (every
    stream drops) and start a new one on the same port, over the same Redis. The table's
    recovery sweep takes tables a second after their last write (`recovery_*`: a test that
    needs only the workers to recover a table turns it off with a long interval). Its tables
    wait for no players' entropy unless `entropy_windows` (commit ms, reveal ms) says so: these
    tests' humans play move by move and send none."""
    ledger_server, ledger = start_ledger(redis_url, namespace)
    dealer_runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
    dealer_settings = DealerSettings(
        runtime=dealer_runtime,
        redis_url=redis_url,
        dealer_key=secrets.token_bytes(32),
        allow_test_decks=True,
    )
    dealer_server, dealer_port = create_server(build_dealer(dealer_settings), dealer_runtime)
    runtime = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key=KEY)
    settings = TableSettings(
        dealer_target=f"127.0.0.1:{dealer_port}",
        evaluator_target="unused",
        ledger_target=f"127.0.0.1:{ledger.port}",
        redis_url=redis_url,
        attention_key=f"croupier:table:attention:{namespace}",
        recovery_grace_s=recovery_grace_s,
        recovery_interval_s=recovery_interval_s,
        entropy_commit_ms=entropy_windows[0],
        entropy_reveal_ms=entropy_windows[1],
    )
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, codec.registry())
    # The table on its default runtime, grpc.aio (a stream holds no thread).
    server = AioServerThread(
        build_aio(settings, runtime, store=store, scheduler=scheduler), runtime
    )
    port = server.port

    def restart_table() -> None:
        nonlocal server
        server.stop(0)
        server = AioServerThread(
            build_aio(settings, runtime, store=store, scheduler=scheduler),
            runtime,
            address=f"127.0.0.1:{port}",
        )

    handle = StackPlatform(
        port=port, ledger_port=ledger.port, dealer_port=dealer_port, restart_table=restart_table
    )
    try:
        yield handle
    finally:
        for channel in handle.channels:
            channel.close()
        server.stop(0)
        ledger_server.stop(0).wait()
        dealer_server.stop(0).wait()
        client.close()


def seat_bot(
    platform: Platform, table_id: str, bot: str, seat_no: int, buy_in: int
) -> table_pb2_grpc.TableServiceStub:
    """The table tests' `seat` for a bot: fund it, join `seat_no` with a bot-role token (so
    the table schedules its turns as a bot's); returns the bot's stub."""
    platform.fund(bot, buy_in)
    stub = platform.table(bot, auth.Role.BOT)
    stub.JoinTable(
        table_pb2.JoinTableRequest(
            table_id=table_id, seat=seat_no, buy_in=buy_in, idempotency_key=f"join-{bot}"
        )
    )
    return stub
