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


def test_a_retried_join_uses_the_reservation_its_crashed_attempt_left(platform: Platform):
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
):
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 200)
    crashed_join(platform, table_id, "alice", "k1", 200)
    seat(platform, table_id, "bob", 0, 200)  # takes the seat alice's attempt wanted
    with pytest.raises(grpc.RpcError) as refused:
        join(platform, table_id, "alice", 0, "k1")
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert held(platform, "alice") == (200, 0)  # nothing is held any more
