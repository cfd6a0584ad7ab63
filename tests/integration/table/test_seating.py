"""Buy-ins, top-ups and cash-outs move chips through the ledger exactly once."""

from __future__ import annotations

import grpc
import pytest

from croupier.table.v1 import table_pb2
from tests.integration.table.conftest import Platform, create_table, seat, view_of


def test_join_top_up_and_leave_move_chips_through_the_ledger(platform: Platform) -> None:
    table_id = create_table(
        platform, seats=3, min_buy_in=50, max_buy_in=300, min_players_to_start=3
    )
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 100)
    assert platform.balance(f"table:{table_id}:CHIP") == 300
    assert platform.balance("player:alice:CHIP") == 0
    platform.fund("alice", 500)
    for _ in range(2):  # a retried top-up moves the chips once
        topped = alice.TopUp(
            table_pb2.TopUpRequest(table_id=table_id, amount=100, idempotency_key="top")
        )
    assert topped.stack == 300
    assert platform.balance(f"table:{table_id}:CHIP") == 400
    assert platform.balance("player:alice:CHIP") == 400
    with pytest.raises(grpc.RpcError) as refused:
        alice.TopUp(table_pb2.TopUpRequest(table_id=table_id, amount=1, idempotency_key="x"))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert platform.balance("player:alice:CHIP") == 400  # the refused top-up moved nothing
    left = alice.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="l"))
    assert left.left
    assert platform.balance("player:alice:CHIP") == 700
    assert platform.balance(f"table:{table_id}:CHIP") == 100
    assert [s.seat for s in view_of(alice, table_id).seats] == [1]


def test_a_seat_taken_twice_keeps_the_first_player_and_releases_the_second_hold(
    platform: Platform,
) -> None:
    table_id = create_table(platform, seats=3, min_players_to_start=3)
    seat(platform, table_id, "alice", 0, 200)
    platform.fund("bob", 200)
    bob = platform.table("bob")
    with pytest.raises(grpc.RpcError) as refused:
        bob.JoinTable(
            table_pb2.JoinTableRequest(table_id=table_id, seat=0, buy_in=200, idempotency_key="j")
        )
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "seat 0 is taken" in (refused.value.details() or "")
    assert platform.balance("player:bob:CHIP") == 200
