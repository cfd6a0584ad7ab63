"""A table left between a command and its next process step by a failure (its dealer down,
its instance killed with SIGKILL) is finished by the next instance without anyone's command:
the flop is dealt once the dealer is back, or the hand is voided past the limit.

The table service runs as a real process (`python -m services.table`) killed with SIGKILL;
its dealer and ledger are real servers in this process, stopped and started on their ports.
The tests read the table's own event stream to see what happened, so that no request of
theirs reaches the table service (a read loads the table, which is a trigger of its own).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
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
from services.table.shell import Table
from tests.fixtures.conditions import wait_until
from tests.fixtures.service_process import ServiceProcess
from tests.integration.ledger.conftest import start_ledger
from tests.integration.table.conftest import KEY, Platform, act, create_table, seat, view_of

# Generous for a loaded machine; a healthy run takes a few seconds.
RECOVERY_TIMEOUT_S = 60.0


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
        platform=Platform(port=table.port, ledger_port=ledger.port),
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


@pytest.fixture
def sweeping(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    yield from stack(redis_url, key_prefix, tmp_path, CROUPIER_TABLE_VOID_AFTER_S="300")


def check_recorded_with_the_dealer_down(stack: Stack) -> str:
    """Heads-up hand 1 to the flop: alice (button) calls, the dealer stops, bob checks. His
    check is recorded (the call answers OK) but the flop cannot be dealt. Returns the table."""
    table_id = create_table(stack.platform, seats=2)
    alice = seat(stack.platform, table_id, "alice", 0, 200)
    bob = seat(stack.platform, table_id, "bob", 1, 200)
    wait_until(lambda: view_of(alice, table_id).to_act == 0, 30, "hand 1 dealt")
    act(alice, table_id, 1, table_pb2.ACTION_CALL)
    stack.stop_dealer()
    act(bob, table_id, 1, table_pb2.ACTION_CHECK)
    hand = stack.recorded(table_id).engine.hand
    assert hand is not None and hand.board == () and hand.to_act is None  # waits for cards
    return table_id


def test_a_restarted_table_service_deals_the_flop_nobody_asked_for(sweeping: Stack) -> None:
    table_id = check_recorded_with_the_dealer_down(sweeping)
    sweeping.table.kill()
    sweeping.start_dealer()
    sweeping.table.start()
    # Nobody acts or reads the table: the restarted instance's recovery sweep must find it.

    def flop_dealt() -> bool:
        hand = sweeping.recorded(table_id).engine.hand
        return hand is not None and len(hand.board) == 3

    wait_until(flop_dealt, RECOVERY_TIMEOUT_S, "flop dealt", sweeping.table.log)
    assert sweeping.recorded(table_id).engine.hand.to_act is not None  # type: ignore[union-attr]


@pytest.fixture
def loading(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    """The recovery sweep as good as off (an hour apart): only loading the table helps."""
    yield from stack(
        redis_url,
        key_prefix,
        tmp_path,
        CROUPIER_TABLE_VOID_AFTER_S="300",
        CROUPIER_TABLE_RECOVERY_INTERVAL_S="3600",
    )


def test_the_first_instance_to_load_a_stalled_table_finishes_its_steps(loading: Stack) -> None:
    table_id = check_recorded_with_the_dealer_down(loading)
    loading.table.kill()
    loading.start_dealer()
    loading.table.start()
    watcher = loading.platform.table("carol")
    # One read, as any watcher's client makes on reconnecting; nobody acts.
    assert view_of(watcher, table_id).board == []

    def flop_dealt() -> bool:
        hand = loading.recorded(table_id).engine.hand
        return hand is not None and len(hand.board) == 3

    wait_until(flop_dealt, RECOVERY_TIMEOUT_S, "flop dealt", loading.table.log)


VOID_AFTER_S = 5


@pytest.fixture
def voiding(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    yield from stack(redis_url, key_prefix, tmp_path, CROUPIER_TABLE_VOID_AFTER_S=str(VOID_AFTER_S))


def test_a_hand_stuck_across_a_restart_is_voided_past_the_limit(voiding: Stack) -> None:
    table_id = check_recorded_with_the_dealer_down(voiding)
    voiding.table.kill()  # its in-memory timer for the void dies with it
    voiding.table.start()  # the dealer stays down

    def voided() -> bool:
        return any(isinstance(e, ev.HandVoided) for e in voiding.events(table_id))

    wait_until(voided, RECOVERY_TIMEOUT_S, "hand voided", voiding.table.log)
    table = voiding.recorded(table_id)
    assert table.engine.hand is None
    assert {i: s.stack for i, s in enumerate(table.engine.seats) if s is not None} == {
        0: 200,
        1: 200,
    }
    assert voiding.platform.balance(f"table:{table_id}:CHIP") == 400
