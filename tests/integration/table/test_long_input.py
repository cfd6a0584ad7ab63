"""Errors never grow with what the caller sent. A 70,000-character key or id gets its real
error, short: before, the message echoed it whole, the status trailer outgrew what a client
accepts, and the caller saw RESOURCE_EXHAUSTED "Stream removed" instead."""

from __future__ import annotations

import functools
from collections.abc import Callable

import grpc
import pytest

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import table_pb2
from services.shared import auth
from services.shared.errors import MAX_MESSAGE_BYTES
from tests.integration.table.conftest import Platform, create_table

LONG = "k" * 70_000


def status_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert isinstance(error, grpc.Call)
    return error.code(), error.details() or ""


def test_a_70000_character_input_gets_its_real_error_cut_short(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    alice = platform.table("alice")
    platform.fund("alice", 100)
    service = platform.ledger()
    player_ledger = ledger_pb2_grpc.LedgerServiceStub(
        platform._channel(platform.ledger_port, "alice", auth.Role.PLAYER)
    )
    one = chips_pb2.ChipAmount(currency="CHIP", amount=1)
    cases: list[tuple[Callable[[], object], grpc.StatusCode, str]] = [
        (
            lambda: alice.GetTableView(table_pb2.GetTableViewRequest(table_id=LONG)),
            grpc.StatusCode.NOT_FOUND,
            "message cut",
        ),
        (
            lambda: alice.JoinTable(
                table_pb2.JoinTableRequest(table_id="/" + LONG, buy_in=20, idempotency_key="j")
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "aggregate id",
        ),
        (
            lambda: alice.ListTables(table_pb2.ListTablesRequest(page_token=LONG)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "page_token",
        ),
        (
            lambda: service.Deposit(
                ledger_pb2.DepositRequest(
                    idempotency_key=LONG, account_id="player:alice:CHIP", amount=one
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "idempotency_key must be 1-200",
        ),
        (
            lambda: player_ledger.Withdraw(
                ledger_pb2.WithdrawRequest(
                    idempotency_key="player:alice/" + LONG,
                    account_id="player:alice:CHIP",
                    amount=one,
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "idempotency_key must be 1-200",
        ),
        (
            lambda: service.GetBalance(ledger_pb2.GetBalanceRequest(account_id=LONG)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "account id",
        ),
        (
            lambda: service.History(
                ledger_pb2.HistoryRequest(account_id="player:alice:CHIP", before=LONG)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "not a cursor",
        ),
        (
            lambda: service.GetReservation(ledger_pb2.GetReservationRequest(reservation_id=LONG)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "reservation_id",
        ),
    ]
    for call, code, says in cases:
        got, details = status_of(call)
        assert (got, says in details) == (code, True), details[:300]
        assert len(details.encode()) <= MAX_MESSAGE_BYTES
    # Nothing changed: her chips are where they were, the table is as it was.
    assert platform.balance("player:alice:CHIP") == 100
    assert alice.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view.version > 0


def test_a_page_token_list_tables_never_gave_is_invalid_argument(platform: Platform) -> None:
    # (found by tests/integration/test_rpc_fuzz.py: the first was INTERNAL, Redis refusing
    # a stream id beyond 64 bits; the second would not parse)
    alice = platform.table("alice")
    for token in ("999999999999999999999", "²", "-1", "1.5"):
        request = table_pb2.ListTablesRequest(page_token=token)
        code, details = status_of(functools.partial(alice.ListTables, request))
        assert code is grpc.StatusCode.INVALID_ARGUMENT, (token, details)
        assert "next_page_token" in details
