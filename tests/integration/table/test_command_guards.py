"""Requests a player could use against the table: each is refused with its status, and the
refusal changes nothing (no event, no seat, no ledger account)."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from tests.integration.table.conftest import (
    Platform,
    TableOptionFields,
    create_table,
    new_table_id,
    seat,
    view_of,
)


def rejected(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def test_a_player_setting_join_table_bot_is_permission_denied_and_takes_no_seat(
    platform: Platform,
) -> None:
    table_id = create_table(platform, seats=2)
    platform.fund("mallory", 200)
    mallory = platform.table("mallory")
    request = table_pb2.JoinTableRequest(
        table_id=table_id,
        seat=0,
        buy_in=200,
        idempotency_key="join-as-bot",
        bot=table_pb2.BotSeat(policy="tight", difficulty=0.5),
    )
    error = rejected(lambda: mallory.JoinTable(request))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "bot" in (error.details() or "")
    view = view_of(mallory, table_id)
    assert [s.player_id for s in view.seats if s.player_id] == []
    assert platform.balance("player:mallory:CHIP") == 200  # no hold was taken

    # The same join without the flag seats her as a player.
    request.ClearField("bot")
    mallory.JoinTable(request)
    seated = [s for s in view_of(mallory, table_id).seats if s.player_id == "mallory"]
    assert len(seated) == 1 and not seated[0].is_bot


KeylessCall = Callable[[table_pb2_grpc.TableServiceStub, str], object]

# Every TableService command the proto says needs an idempotency key, sent without one.
KEYLESS: dict[str, KeylessCall] = {
    "Act": lambda stub, t: stub.Act(
        table_pb2.ActRequest(table_id=t, hand_number=1, action=table_pb2.ACTION_CALL)
    ),
    "Play": lambda stub, t: _play_once(
        stub, table_pb2.ActRequest(table_id=t, hand_number=1, action=table_pb2.ACTION_CALL)
    ),
    "JoinTable": lambda stub, t: stub.JoinTable(
        table_pb2.JoinTableRequest(table_id=t, seat=1, buy_in=100)
    ),
    "TopUp": lambda stub, t: stub.TopUp(table_pb2.TopUpRequest(table_id=t, amount=10)),
    "SitOut": lambda stub, t: stub.SitOut(table_pb2.SitOutRequest(table_id=t)),
    "SitIn": lambda stub, t: stub.SitIn(table_pb2.SitInRequest(table_id=t)),
    "LeaveTable": lambda stub, t: stub.LeaveTable(table_pb2.LeaveTableRequest(table_id=t)),
    "CreateTable": lambda stub, t: stub.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=f"{t}x",
            options=table_pb2.TableOptions(
                game=table_pb2.GAME_TEXAS_HOLDEM, seats=2, small_blind=1, big_blind=2
            ),
        )
    ),
}


def _play_once(stub: table_pb2_grpc.TableServiceStub, act: table_pb2.ActRequest) -> None:
    """One Act on a Play stream; its refusal (answered on the stream) raised as the RPC's."""
    (answer,) = list(stub.Play(iter([table_pb2.PlayRequest(act=act)])))
    if answer.HasField("error"):
        raise _PlayRefused(answer.error)


class _PlayRefused(grpc.RpcError):
    def __init__(self, error: table_pb2.PlayError) -> None:
        self._error = error

    def code(self) -> grpc.StatusCode:
        return next(c for c in grpc.StatusCode if c.value[0] == self._error.code)

    def details(self) -> str:
        return self._error.message


@pytest.mark.parametrize("rpc", sorted(KEYLESS))
def test_a_command_without_an_idempotency_key_is_invalid_argument_and_changes_nothing(
    platform: Platform, rpc: str
) -> None:
    table_id = create_table(platform, seats=3)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 2, 200)
    platform.fund("alice", 100)
    caller = alice if rpc != "CreateTable" else platform.table("house", auth.Role.ADMIN)
    before = view_of(alice, table_id)
    for _ in range(2):  # the second keyless call must not be answered as a retry of the first
        error = rejected(lambda: KEYLESS[rpc](caller, table_id))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (rpc, error.details())
        assert "idempotency_key" in (error.details() or ""), error.details()
    assert view_of(alice, table_id).version == before.version
    if rpc == "CreateTable":
        missing = rejected(lambda: view_of(alice, f"{table_id}x"))
        assert missing.code() == grpc.StatusCode.NOT_FOUND


INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    "options",
    [
        TableOptionFields(big_blind=INT64_MAX),
        TableOptionFields(small_blind=1, big_blind=2, max_buy_in=INT64_MAX),
        TableOptionFields(big_blind=2**62, small_blind=2**61),
        TableOptionFields(ante=INT64_MAX, small_blind=0, big_blind=0),
        TableOptionFields(rake_cap=INT64_MAX, rake_basis_points=500),
    ],
    ids=["big-blind", "max-buy-in", "blinds-2^62", "ante", "rake-cap"],
)
def test_create_table_with_amounts_beyond_the_ledgers_range_is_invalid_argument_and_creates_nothing(
    platform: Platform, options: TableOptionFields
) -> None:
    table_id = new_table_id()
    admin = platform.table("house", auth.Role.ADMIN)
    fields = TableOptionFields(
        game=table_pb2.GAME_TEXAS_HOLDEM, structure=table_pb2.STRUCTURE_NO_LIMIT, seats=2
    )
    fields.update(options)
    request = table_pb2.CreateTableRequest(
        table_id=table_id,
        idempotency_key=f"create-{table_id}",
        options=table_pb2.TableOptions(**fields),
    )
    error = rejected(lambda: admin.CreateTable(request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert len(error.details() or "") < 400
    missing = rejected(lambda: view_of(admin, table_id))
    assert missing.code() == grpc.StatusCode.NOT_FOUND
    unopened = rejected(
        lambda: platform.ledger().GetBalance(
            ledger_pb2.GetBalanceRequest(account_id=f"table:{table_id}:CHIP")
        )
    )
    assert unopened.code() == grpc.StatusCode.NOT_FOUND
    listed = admin.ListTables(table_pb2.ListTablesRequest()).tables
    assert table_id not in [t.table_id for t in listed]
