"""The broker dies between an Act's append and the scheduling of the next decision's timeout:
the Act still answers OK (it is recorded), and once the broker is back the timeout is
scheduled and fires, with nobody sending the Act again.

Real processes: the table service (`python -m services.table`, its Celery scheduler on the
broker Redis), a Celery worker, and the broker's redis-server, killed with SIGKILL. The table's
events live on another Redis, which stays up.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from croupier.table.v1 import table_pb2
from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.games.poker import events as ev
from services.shared.eventstore import RedisEventStore
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table import codec
from services.table.application import fold_recorded, table_stream
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_server import RedisServer
from tests.fixtures.service_process import ServiceProcess
from tests.integration.ledger.conftest import start_ledger
from tests.integration.table.conftest import KEY, Platform, act, create_table, seat, view_of

from .worker_process import running_worker, worker_env

ACTION_TIME_MS = 2000


@pytest.fixture
def broker() -> Iterator[RedisServer]:
    with RedisServer.private_server() as server:
        yield server


def test_an_act_whose_timeout_cannot_be_scheduled_answers_ok_and_the_timeout_fires_later(
    redis_url: str, key_prefix: str, broker: RedisServer, tmp_path: Path
) -> None:
    ledger_server, ledger = start_ledger(redis_url, key_prefix)
    dealer_runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
    dealer_server, dealer_port = create_server(
        build_dealer(
            DealerSettings(
                runtime=dealer_runtime, redis_url=redis_url, dealer_key=secrets.token_bytes(32)
            )
        ),
        dealer_runtime,
    )
    table = ServiceProcess(
        "table",
        {
            "CROUPIER_AUTH_KEY": KEY,
            "REDIS_URL": broker.url,  # the Celery broker and the workers' deadline index
            "CROUPIER_TABLE_REDIS_URL": redis_url,  # the table's events
            "CROUPIER_DEALER_TARGET": f"127.0.0.1:{dealer_port}",
            "CROUPIER_EVALUATOR_TARGET": "127.0.0.1:1",
            "CROUPIER_LEDGER_TARGET": f"127.0.0.1:{ledger.port}",
            "CROUPIER_TABLE_ATTENTION_KEY": f"croupier:table:attention:{key_prefix}",
            "CROUPIER_TABLE_RECOVERY_GRACE_S": "1",
            "CROUPIER_TABLE_RECOVERY_INTERVAL_S": "0.2",
        },
        tmp_path / "table.log",
    ).start()
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, codec.registry())
    platform = Platform(port=table.port, ledger_port=ledger.port)
    try:
        table_id = create_table(platform, seats=2, action_time_ms=ACTION_TIME_MS)
        alice = seat(platform, table_id, "alice", 0, 200)
        seat(platform, table_id, "bob", 1, 200)
        wait_until(lambda: view_of(alice, table_id).to_act == 0, 30, "hand 1 dealt")
        before = view_of(alice, table_id).version

        broker.kill()
        answer = act(alice, table_id, 1, table_pb2.ACTION_CALL)  # must not raise
        assert answer.version > before
        decision = fold_recorded(table_id, store.read(table_stream(table_id))).shell.decision
        assert decision is not None and decision.seat == 1  # bob's, clock running

        broker.restart()
        # A worker, started after the outage: only a scheduled (or re-scheduled) timeout
        # reaches it. Nobody acts; bob's clock ran out while the broker was down.
        env = worker_env(broker.url, table.address, KEY, sweep_interval=0.5, sweep_grace=0.2)
        with running_worker(env, tmp_path):

            def bob_timed_out() -> bool:
                events = [codec.from_message(r.message) for r in store.read(table_stream(table_id))]
                return any(isinstance(e, ev.TimedOut) and e.seat == 1 for e in events)

            wait_until(bob_timed_out, 60, "bob timed out", lambda: table.log()[-2000:])
    finally:
        table.kill()
        for channel in platform.channels:
            channel.close()
        dealer_server.stop(0).wait()
        ledger_server.stop(0).wait()
        client.close()
