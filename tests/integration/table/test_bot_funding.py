"""Requested bots play with the house's chips: asking for them is an operator's decision, and
what one table's bots may bring is bounded. Before, any player could create a table whose bots
the house funded at a buy-in she set through the blinds (4 x 10^14 chips in 15 s at one
table; another drove external:world to -9,007,199,254,740,400, after which every deposit of
1,000 chips or more failed). Each refusal here comes before any effect: no table, no stream,
no escrow account, no trigger. (The bankroll that bounds all tables together:
tests/integration/workers/test_bot_bankroll.py.)"""

from __future__ import annotations

import functools

import grpc

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from services.table.bot_requests import MAX_BOT_CHIPS_PER_TABLE
from tests.integration.table.conftest import Platform, create_table, new_table_id, view_of
from tests.integration.table.test_command_guards import rejected


def create_request(table_id: str, big_blind: int, bots: int) -> table_pb2.CreateTableRequest:
    return table_pb2.CreateTableRequest(
        table_id=table_id,
        idempotency_key=f"create-{table_id}",
        options=table_pb2.TableOptions(
            game=table_pb2.GAME_TEXAS_HOLDEM,
            structure=table_pb2.STRUCTURE_NO_LIMIT,
            seats=6,
            small_blind=big_blind // 2,
            big_blind=big_blind,
        ),
        bots=[table_pb2.BotSeat(policy="tight", difficulty=0.5)] * bots,
    )


def assert_nothing_created(platform: Platform, table_id: str) -> None:
    admin = platform.table("house", auth.Role.ADMIN)
    assert rejected(lambda: view_of(admin, table_id)).code() == grpc.StatusCode.NOT_FOUND
    unopened = rejected(
        lambda: platform.ledger().GetBalance(
            ledger_pb2.GetBalanceRequest(account_id=f"table:{table_id}:CHIP")
        )
    )
    assert unopened.code() == grpc.StatusCode.NOT_FOUND
    listed = admin.ListTables(table_pb2.ListTablesRequest()).tables
    assert table_id not in [t.table_id for t in listed]


def test_a_player_asking_for_bots_is_permission_denied_and_creates_nothing(
    platform: Platform,
) -> None:
    for role in (auth.Role.PLAYER, auth.Role.BOT, auth.Role.DEALER_CONSOLE):
        table_id = new_table_id()
        stub: table_pb2_grpc.TableServiceStub = platform.table("mallory", role)
        request = create_request(table_id, 2 * 10**12, 5)
        error = rejected(functools.partial(stub.CreateTable, request))
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error.details()
        assert "house's chips" in (error.details() or "")
        assert_nothing_created(platform, table_id)
    # She may still create a table without bots, and an operator one with bots.
    platform.table("mallory").CreateTable(create_request(new_table_id(), 2, 0))
    create_table(platform, bots=[("tight", 0.5)])


def test_an_operators_table_whose_bots_would_bring_too_many_chips_is_refused_first(
    platform: Platform,
) -> None:
    admin = platform.table("house", auth.Role.ADMIN)
    # 100 big blinds each: one bot at exactly the limit is fine, two are not.
    big_blind = MAX_BOT_CHIPS_PER_TABLE // 100
    admin.CreateTable(create_request(new_table_id(), big_blind, 1))
    table_id = new_table_id()
    error = rejected(lambda: admin.CreateTable(create_request(table_id, big_blind, 2)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert f"at most {MAX_BOT_CHIPS_PER_TABLE}" in (error.details() or "")
    assert_nothing_created(platform, table_id)
