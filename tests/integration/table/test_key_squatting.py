"""A player cannot pre-empt the keys the platform derives from public data.

The table keys its ledger postings by what they are (`<table>/cashout/<version>`,
`<table>/<hand>/settle`, `<table>/join/<player>/<key>`): anybody can compute them. Before the
ledger gave keys owners, a player who spent such a key first on a one-chip Withdraw of her
own made the table's posting a reused key, refused for ever: another player's LeaveTable said
"left" while her chips stayed in escrow, a raked table stopped after its first hand, a
JoinTable failed. Now the squatter's Withdraw is PERMISSION_DENIED and the table goes on.
(A requested bot's seating keys: tests/integration/workers/test_bot_seats.py.)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import grpc

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    passive_action,
    seat,
    view_of,
)


def squat(platform: Platform, keys: list[str]) -> list[grpc.StatusCode]:
    """Mallory spends each key on a one-chip Withdraw of her own; the status of each try."""
    platform.fund("mallory", len(keys))
    mallory = ledger_pb2_grpc.LedgerServiceStub(
        platform._channel(platform.ledger_port, "mallory", auth.Role.PLAYER)
    )
    codes = []
    for key in keys:
        try:
            mallory.Withdraw(
                ledger_pb2.WithdrawRequest(
                    idempotency_key=key,
                    account_id="player:mallory:CHIP",
                    amount=chips_pb2.ChipAmount(currency="CHIP", amount=1),
                )
            )
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            assert isinstance(exc, grpc.Call)
            codes.append(exc.code())
    return codes


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_squatted_cash_out_key_cannot_keep_a_players_chips_in_escrow(
    platform: Platform,
) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 500)
    version = view_of(alice, table_id).version
    # Her PlayerLeft lands within the next few versions: every cash-out key it could get.
    codes = squat(platform, [f"{table_id}/cashout/{v}" for v in range(version, version + 12)])
    left = alice.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    assert left.left
    assert wait_for(lambda: platform.balance("player:alice:CHIP") == 500), "chips kept"
    assert platform.balance(f"table:{table_id}:CHIP") == 0
    assert set(codes) == {grpc.StatusCode.PERMISSION_DENIED}


def test_a_squatted_settlement_key_cannot_stop_a_raked_table(platform: Platform) -> None:
    table_id = create_table(platform, seats=2, small_blind=5, big_blind=10, rake_basis_points=500)
    codes = squat(platform, [f"{table_id}/1/settle"])
    stubs = {
        0: seat(platform, table_id, "alice", 0, 500),
        1: seat(platform, table_id, "bob", 1, 500),
    }
    house = platform.table("house", auth.Role.ADMIN)

    def hand_two_started() -> bool:
        view = view_of(house, table_id)
        if view.hand_number >= 2:
            return True
        if view.hand_in_progress and view.to_act >= 0:
            own = view_of(stubs[view.to_act], table_id)
            action, amount, cards = passive_action(own)
            with contextlib.suppress(grpc.RpcError):  # (a turn that moved on meanwhile)
                act(stubs[view.to_act], table_id, view.hand_number, action, amount, cards)
        return False

    assert wait_for(hand_two_started, timeout=30), "the table stopped after hand 1"
    assert wait_for(lambda: platform.balance("house:rake:CHIP") > 0), "the rake is stuck"
    assert codes == [grpc.StatusCode.PERMISSION_DENIED]


def test_a_squatted_buy_in_key_cannot_fail_another_players_join(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    # conftest.seat joins with the key "join-alice": the table keys her hold by it.
    hold = f"{table_id}/join/alice/join-alice"
    codes = squat(platform, [hold, f"{hold}/post", f"{hold}/void"])
    alice = seat(platform, table_id, "alice", 0, 500)
    seats = {s.player_id: s.stack for s in view_of(alice, table_id).seats if s.player_id}
    assert seats == {"alice": 500}
    assert wait_for(lambda: platform.balance(f"table:{table_id}:CHIP") == 500)
    assert set(codes) == {grpc.StatusCode.PERMISSION_DENIED}
