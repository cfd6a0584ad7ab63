"""A table left between a command and its next process step by a failure (its dealer down,
its instance killed with SIGKILL) is finished by the next instance without anyone's command:
the flop is dealt once the dealer is back, or the hand is voided past the limit.

The table service runs as a real process (`python -m services.table`) killed with SIGKILL;
its dealer and ledger are real servers in this process, stopped and started on their ports.
The tests read the table's own event stream to see what happened, so that no request of
theirs reaches the table service (a read loads the table, which is a trigger of its own).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from croupier.table.v1 import table_pb2
from services.games.poker import events as ev
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import act, create_table, seat, view_of
from tests.integration.table.process_stack import Stack, stack

# Generous for a loaded machine; a healthy run takes a few seconds.
RECOVERY_TIMEOUT_S = 60.0


@pytest.fixture
def sweeping(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    with stack(redis_url, key_prefix, tmp_path, CROUPIER_TABLE_VOID_AFTER_S="300") as running:
        yield running


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
    hand = stack.recorded(table_id).state.engine.hand
    assert hand is not None and hand.board == () and hand.to_act is None  # waits for cards
    return table_id


def test_a_restarted_table_service_deals_the_flop_nobody_asked_for(sweeping: Stack) -> None:
    table_id = check_recorded_with_the_dealer_down(sweeping)
    sweeping.table.kill()
    sweeping.start_dealer()
    sweeping.table.start()
    # Nobody acts or reads the table: the restarted instance's recovery sweep must find it.

    def flop_dealt() -> bool:
        hand = sweeping.recorded(table_id).state.engine.hand
        return hand is not None and len(hand.board) == 3

    wait_until(flop_dealt, RECOVERY_TIMEOUT_S, "flop dealt", sweeping.table.log)
    assert sweeping.recorded(table_id).state.engine.hand.to_act is not None


@pytest.fixture
def loading(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    """The recovery sweep as good as off (an hour apart): only loading the table helps."""
    with stack(
        redis_url,
        key_prefix,
        tmp_path,
        CROUPIER_TABLE_VOID_AFTER_S="300",
        CROUPIER_TABLE_RECOVERY_INTERVAL_S="3600",
    ) as running:
        yield running


def test_the_first_instance_to_load_a_stalled_table_finishes_its_steps(loading: Stack) -> None:
    table_id = check_recorded_with_the_dealer_down(loading)
    loading.table.kill()
    loading.start_dealer()
    loading.table.start()
    watcher = loading.platform.table("carol")
    # One read, as any watcher's client makes on reconnecting; nobody acts.
    assert view_of(watcher, table_id).board == []

    def flop_dealt() -> bool:
        hand = loading.recorded(table_id).state.engine.hand
        return hand is not None and len(hand.board) == 3

    wait_until(flop_dealt, RECOVERY_TIMEOUT_S, "flop dealt", loading.table.log)


VOID_AFTER_S = 5


@pytest.fixture
def voiding(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    with stack(
        redis_url, key_prefix, tmp_path, CROUPIER_TABLE_VOID_AFTER_S=str(VOID_AFTER_S)
    ) as running:
        yield running


def test_a_hand_stuck_across_a_restart_is_voided_past_the_limit(voiding: Stack) -> None:
    table_id = check_recorded_with_the_dealer_down(voiding)
    voiding.table.kill()  # its in-memory timer for the void dies with it
    voiding.table.start()  # the dealer stays down

    def voided() -> bool:
        return any(isinstance(e, ev.HandVoided) for e in voiding.events(table_id))

    wait_until(voided, RECOVERY_TIMEOUT_S, "hand voided", voiding.table.log)
    table = voiding.recorded(table_id)
    assert table.state.engine.hand is None
    assert {i: s.stack for i, s in enumerate(table.state.engine.seats) if s is not None} == {
        0: 200,
        1: 200,
    }
    assert voiding.platform.balance(f"table:{table_id}:CHIP") == 400
