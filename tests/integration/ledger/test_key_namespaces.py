"""Idempotency keys belong to a principal: a player's live under `player:<subject>/`, every
other key is the platform's, and the ledger refuses a key from outside the caller's own
namespace before it reads anything, so nobody can spend a key another principal will use."""

from __future__ import annotations

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.shared.auth import Role
from tests.integration.ledger.conftest import LedgerServer, chips, credit, debit

ALICE = "player:alice:CHIP"
TABLE = "table:t1:CHIP"


@pytest.fixture
def service(ledger: LedgerServer) -> ledger_pb2_grpc.LedgerServiceStub:
    stub = ledger.stub()
    for kind, name in (
        (ledger_pb2.ACCOUNT_KIND_PLAYER, "alice"),
        (ledger_pb2.ACCOUNT_KIND_TABLE, "t1"),
    ):
        stub.OpenAccount(ledger_pb2.OpenAccountRequest(kind=kind, name=name, currency="CHIP"))
    stub.Deposit(
        ledger_pb2.DepositRequest(idempotency_key="fund/alice", account_id=ALICE, amount=chips(500))
    )
    return stub


def withdraw(stub: ledger_pb2_grpc.LedgerServiceStub, key: str, amount: int = 1) -> None:
    stub.Withdraw(
        ledger_pb2.WithdrawRequest(idempotency_key=key, account_id=ALICE, amount=chips(amount))
    )


def refused(call: object) -> tuple[grpc.StatusCode, str]:
    assert callable(call)
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert isinstance(error, grpc.Call)
    return error.code(), error.details() or ""


def available(stub: ledger_pb2_grpc.LedgerServiceStub) -> int:
    return stub.GetBalance(ledger_pb2.GetBalanceRequest(account_id=ALICE)).balance.available


def test_a_player_may_use_only_keys_of_her_own_namespace(
    service: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    alice = ledger.stub("alice", Role.PLAYER)
    # The keys the platform derives from public data: a cash-out, a settlement, a buy-in.
    for key in ("t1/cashout/7", "t1/1/settle", "t1/join/bob/join-bob", "player:bob/out"):
        code, details = refused(lambda key=key: withdraw(alice, key))
        assert code is grpc.StatusCode.PERMISSION_DENIED, (key, details)
        assert "player:alice/" in details
    assert available(service) == 500  # nothing moved, no key spent
    withdraw(alice, "player:alice/cash-out-1", 50)
    assert available(service) == 450
    # The platform may still use every key she was refused: none of them is spent.
    service.Transfer(
        ledger_pb2.TransferRequest(
            idempotency_key="t1/cashout/7", legs=[debit(ALICE, 10), credit(TABLE, 10)]
        )
    )
    assert available(service) == 440


def test_the_platform_may_not_use_a_players_namespace(
    service: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    code, details = refused(
        lambda: service.Transfer(
            ledger_pb2.TransferRequest(
                idempotency_key="player:alice/cash-out-1", legs=[debit(ALICE, 5), credit(TABLE, 5)]
            )
        )
    )
    assert code is grpc.StatusCode.PERMISSION_DENIED and "belong to players" in details
    assert available(service) == 500
    # ... so the key is still hers.
    withdraw(ledger.stub("alice", Role.PLAYER), "player:alice/cash-out-1", 5)
    assert available(service) == 495


def test_a_bots_keys_live_in_its_own_player_namespace_and_a_bad_key_is_invalid_first(
    service: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    bot = ledger.stub("alice", Role.BOT)  # a bot's account is player:<subject>:<currency>
    code, _ = refused(lambda: withdraw(bot, "seat-bot/t1/0/0"))
    assert code is grpc.StatusCode.PERMISSION_DENIED
    code, _ = refused(lambda: withdraw(bot, ""))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    withdraw(bot, "player:alice/bot-out", 3)
    assert available(service) == 497
