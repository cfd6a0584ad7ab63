"""A crash between the ledger Reserve and the BuyInReserved append: the retry recovers it.

The crash is simulated by doing the first half of a JoinTable by hand (the ledger Reserve
under the key the table uses) and never appending; then the player retries with the key.
"""

from __future__ import annotations

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2
from services.shared import auth
from services.shared.channels import connect
from services.table.adapters import GrpcLedger
from tests.integration.table.conftest import KEY, Platform, create_table, seat, view_of


def crashed_join(platform: Platform, table_id: str, player: str, key: str, amount: int) -> None:
    """What JoinTable does before its append: reserve the buy-in under the command key."""
    channel = connect(
        f"127.0.0.1:{platform.ledger_port}", auth.issue_token(KEY, "table", auth.Role.SERVICE, 60)
    )
    platform.channels.append(channel)
    ledger = GrpcLedger(channel)
    account = ledger.player_account(player, "CHIP")
    ledger.reserve_buy_in(f"{table_id}/join/{player}/{key}", table_id, account, amount, "CHIP")


def held(platform: Platform, player: str) -> tuple[int, int]:
    balance = (
        platform.ledger()
        .GetBalance(ledger_pb2.GetBalanceRequest(account_id=f"player:{player}:CHIP"))
        .balance
    )
    return balance.balance, balance.held


def join(platform: Platform, table_id: str, player: str, seat_no: int, key: str) -> None:
    platform.table(player).JoinTable(
        table_pb2.JoinTableRequest(table_id=table_id, seat=seat_no, buy_in=200, idempotency_key=key)
    )


def test_a_retried_join_uses_the_reservation_its_crashed_attempt_left(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 200)
    crashed_join(platform, table_id, "alice", "k1", 200)
    assert held(platform, "alice") == (200, 200)
    join(platform, table_id, "alice", 0, "k1")  # all 200 are held: only the same hold fits
    view = view_of(platform.table("alice"), table_id)
    assert view.seats[0].player_id == "alice" and view.seats[0].stack == 200
    assert held(platform, "alice") == (0, 0)  # posted once
    assert platform.balance(f"table:{table_id}:CHIP") == 200


def test_a_retried_join_refused_for_a_taken_seat_voids_the_crashed_attempts_hold(
    platform: Platform,
) -> None:
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 200)
    crashed_join(platform, table_id, "alice", "k1", 200)
    seat(platform, table_id, "bob", 0, 200)  # takes the seat alice's attempt wanted
    with pytest.raises(grpc.RpcError) as refused:
        join(platform, table_id, "alice", 0, "k1")
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert held(platform, "alice") == (200, 0)  # nothing is held any more


def test_a_retried_join_whose_hold_was_voided_seats_nobody(platform: Platform) -> None:
    # The crashed attempt's hold is voided when its retry is refused (the seat was taken);
    # the seat frees, and the same key comes again: the ledger replays the Reserve with the
    # voided reservation's id. Seating on it would put 200 chips at the table that never
    # reached its escrow.
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 200)
    crashed_join(platform, table_id, "alice", "k1", 200)
    bob = seat(platform, table_id, "bob", 0, 200)
    with pytest.raises(grpc.RpcError):
        join(platform, table_id, "alice", 0, "k1")
    bob.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    assert platform.balance(f"table:{table_id}:CHIP") == 0

    with pytest.raises(grpc.RpcError) as refused:
        join(platform, table_id, "alice", 0, "k1")
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "voided" in (refused.value.details() or "")
    assert "new idempotency_key" in (refused.value.details() or "")
    view = view_of(platform.table("alice"), table_id)
    assert [s.player_id for s in view.seats if s.player_id] == []
    assert platform.balance(f"table:{table_id}:CHIP") == 0
    assert held(platform, "alice") == (200, 0)

    join(platform, table_id, "alice", 0, "k2")  # a new key buys in as usual
    view = view_of(platform.table("alice"), table_id)
    assert view.seats[0].player_id == "alice" and view.seats[0].stack == 200
    assert platform.balance(f"table:{table_id}:CHIP") == 200
    assert held(platform, "alice") == (0, 0)


def test_a_top_up_whose_hold_was_voided_adds_no_chips(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    platform.fund("alice", 300)
    # An attempt reserved under the top-up's key and the table voided that hold (what it does
    # when it refuses the top-up), both by hand; then the same key comes again.
    channel = connect(
        f"127.0.0.1:{platform.ledger_port}", auth.issue_token(KEY, "table", auth.Role.SERVICE, 60)
    )
    platform.channels.append(channel)
    ledger = GrpcLedger(channel)
    key = f"{table_id}/topup/alice/t1"
    ledger.reserve_buy_in(key, table_id, "player:alice:CHIP", 300, "CHIP")
    ledger.void(f"{key}/void", key, "top-up refused")

    def top_up(idempotency_key: str) -> table_pb2.TopUpResponse:
        return alice.TopUp(
            table_pb2.TopUpRequest(table_id=table_id, amount=300, idempotency_key=idempotency_key)
        )

    with pytest.raises(grpc.RpcError) as refused:
        top_up("t1")
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "top up again with a new idempotency_key" in (refused.value.details() or "")
    assert view_of(alice, table_id).seats[0].stack == 200
    assert platform.balance(f"table:{table_id}:CHIP") == 200
    assert held(platform, "alice") == (300, 0)

    assert top_up("t2").stack == 500
    assert platform.balance(f"table:{table_id}:CHIP") == 500


def test_a_join_key_whose_hold_was_posted_already_brings_no_chips_again(platform: Platform) -> None:
    # A hold under the join's key that was posted (a join the table no longer remembers: it
    # keeps the last 512 command keys) must not seat anyone a second time on the same chips.
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 200)
    crashed_join(platform, table_id, "alice", "k1", 200)
    key = f"{table_id}/join/alice/k1"
    channel = connect(
        f"127.0.0.1:{platform.ledger_port}", auth.issue_token(KEY, "table", auth.Role.SERVICE, 60)
    )
    platform.channels.append(channel)
    GrpcLedger(channel).post(f"{key}/post", key, table_id)
    with pytest.raises(grpc.RpcError) as refused:
        join(platform, table_id, "alice", 0, "k1")
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "was posted" in (refused.value.details() or "")
    assert not any(s.player_id for s in view_of(platform.table("alice"), table_id).seats)
