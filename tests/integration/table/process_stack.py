"""The table service as a real process (`python -m services.table`, killed with SIGKILL by
the fault tests), with a real dealer and ledger served by the test process (the dealer can be
stopped and started again on its port), and the table's own event stream to read what
happened without asking the table service."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import redis

from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.shared.eventstore import RedisEventStore
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table import codec
from services.table.application import fold_recorded, table_stream
from services.table.shell import Table
from tests.fixtures.service_process import ServiceProcess
from tests.integration.ledger.conftest import start_ledger
from tests.integration.table.conftest import KEY, Platform


@dataclass
class Stack:
    """A table-service process with its dealer and ledger (servers of this test process)."""

    table: ServiceProcess
    platform: Platform
    store: RedisEventStore
    stop_dealer: Callable[[], None]
    start_dealer: Callable[[], None]

    def recorded(self, table_id: str) -> Table:
        """The table folded from its stream, without asking the table service."""
        return fold_recorded(table_id, self.store.read(table_stream(table_id)))

    def events(self, table_id: str) -> list[object]:
        return [codec.from_message(r.message) for r in self.store.read(table_stream(table_id))]

    def version(self, table_id: str) -> int:
        return self.store.version(table_stream(table_id))


@contextmanager
def stack(redis_url: str, key_prefix: str, tmp_path: Path, **table_env: str) -> Iterator[Stack]:
    ledger_server, ledger = start_ledger(redis_url, key_prefix)
    dealer_runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
    dealer_settings = DealerSettings(
        runtime=dealer_runtime, redis_url=redis_url, dealer_key=secrets.token_bytes(32)
    )
    dealer: list[grpc.Server] = []
    dealer_server, dealer_port = create_server(build_dealer(dealer_settings), dealer_runtime)
    dealer.append(dealer_server)

    def stop_dealer() -> None:
        dealer[-1].stop(0).wait()

    def start_dealer() -> None:
        server, _ = create_server(
            build_dealer(dealer_settings), dealer_runtime, address=f"127.0.0.1:{dealer_port}"
        )
        dealer.append(server)

    env = {
        "CROUPIER_AUTH_KEY": KEY,
        "REDIS_URL": redis_url,
        "CROUPIER_DEALER_TARGET": f"127.0.0.1:{dealer_port}",
        "CROUPIER_EVALUATOR_TARGET": "127.0.0.1:1",  # unused: the table ranks in process
        "CROUPIER_LEDGER_TARGET": f"127.0.0.1:{ledger.port}",
        "CROUPIER_TABLE_SCHEDULER": "none",
        "CROUPIER_TABLE_ATTENTION_KEY": f"croupier:table:attention:{key_prefix}",
        "CROUPIER_TABLE_RECOVERY_GRACE_S": "1",
        "CROUPIER_TABLE_RECOVERY_INTERVAL_S": "0.2",
        **table_env,
    }
    table = ServiceProcess("table", env, tmp_path / "table.log").start()
    client = redis.Redis.from_url(redis_url)
    handle = Stack(
        table=table,
        platform=Platform(port=table.port, ledger_port=ledger.port, dealer_port=dealer_port),
        store=RedisEventStore(client, codec.registry()),
        stop_dealer=stop_dealer,
        start_dealer=start_dealer,
    )
    try:
        yield handle
    finally:
        table.kill()
        for channel in handle.platform.channels:
            channel.close()
        for server in dealer:
            server.stop(0).wait()
        ledger_server.stop(0).wait()
        client.close()
