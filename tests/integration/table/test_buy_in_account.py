"""JoinTable's account_id: a player buys in only from an account that is theirs.

A player account is `player:<subject>:<currency>` (docs/ledger.md), so "theirs" is read off
the id. Only the platform's services (service role) may name somebody else's account.
"""

from __future__ import annotations

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from tests.integration.table.conftest import Platform, create_table, view_of


def join(
    stub: table_pb2_grpc.TableServiceStub, table_id: str, account: str, key: str, seat: int = 0
) -> table_pb2.JoinTableResponse:
    return stub.JoinTable(
        table_pb2.JoinTableRequest(
            table_id=table_id, seat=seat, buy_in=400, account_id=account, idempotency_key=key
        )
    )


def held(platform: Platform, account: str) -> tuple[int, int]:
    balance = platform.ledger().GetBalance(ledger_pb2.GetBalanceRequest(account_id=account))
    return balance.balance.balance, balance.balance.held


def test_a_player_cannot_buy_in_with_someone_elses_account(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 400)
    mallory = platform.table("mallory")
    before = view_of(mallory, table_id).version
    for account in ("player:alice:CHIP", "table:somewhere:CHIP", "alice"):
        with pytest.raises(grpc.RpcError) as refused:
            join(mallory, table_id, account, f"steal-{account}")
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
        details = refused.value.details()
        assert details is not None
        assert f"may not buy in from {account}" in details, details
        assert "player:mallory:CHIP" in details, details  # what to use instead
    view = view_of(mallory, table_id)
    assert view.version == before and not any(s.player_id for s in view.seats)
    assert held(platform, "player:alice:CHIP") == (400, 0)  # no hold was taken
    assert platform.balance(f"table:{table_id}:CHIP") == 0


def test_a_player_may_name_their_own_account_and_a_bot_its_own(platform: Platform) -> None:
    table_id = create_table(platform, seats=3, min_players_to_start=3)  # no hand: stacks stay
    platform.fund("alice", 400)
    platform.fund("bot-x", 400)
    join(platform.table("alice"), table_id, "player:alice:CHIP", "mine")
    join(platform.table("bot-x", auth.Role.BOT), table_id, "", "mine", seat=1)
    view = view_of(platform.table("alice"), table_id)
    assert [(s.player_id, s.stack) for s in view.seats] == [("alice", 400), ("bot-x", 400)]
    assert platform.balance(f"table:{table_id}:CHIP") == 800


def test_only_the_platforms_services_may_buy_in_from_another_account(platform: Platform) -> None:
    # The ledger lets the platform's services move any chips; admins move none.
    table_id = create_table(platform, seats=2)
    platform.fund("house-bots", 800)
    with pytest.raises(grpc.RpcError) as refused:
        join(platform.table("ops", auth.Role.ADMIN), table_id, "player:house-bots:CHIP", "a")
    assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
    join(platform.table("seater", auth.Role.SERVICE), table_id, "player:house-bots:CHIP", "s")
    view = view_of(platform.table("ops", auth.Role.ADMIN), table_id)
    assert [(s.player_id, s.stack) for s in view.seats] == [("seater", 400)]
    assert held(platform, "player:house-bots:CHIP") == (400, 0)
