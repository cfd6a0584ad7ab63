"""A hand that cannot finish because a dependency stays down is voided, stakes returned."""

from __future__ import annotations

import time

from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.integration.table.conftest import Platform, act, create_table, seat, view_of


def test_hand_stuck_on_a_dead_dealer_is_voided_and_every_stake_returned(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    act(alice, table_id, 1, table_pb2.ACTION_RAISE, amount=10)
    assert platform.stop_dealer is not None
    platform.stop_dealer()
    # bob's call is recorded; dealing the flop needs the dealer, which is gone.
    act(bob, table_id, 1, table_pb2.ACTION_CALL)
    house = platform.table("house", auth.Role.ADMIN)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        view = view_of(house, table_id)
        if not view.hand_in_progress:
            break
        time.sleep(0.2)
    assert not view.hand_in_progress
    assert {s.seat: s.stack for s in view.seats} == {0: 200, 1: 200}
    history = house.GetHandHistory(table_pb2.GetHandHistoryRequest(table_id=table_id))
    assert "HAND VOIDED" in history.text
    assert "gets back 10" in history.text
    assert platform.balance(f"table:{table_id}:CHIP") == 400
