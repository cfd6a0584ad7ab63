"""History's `before` must be a cursor History could have given: "0-0" (before every entry)
and stream ids beyond 64 bits are INVALID_ARGUMENT, and change nothing. They reached Redis,
which refused them, and the caller got INTERNAL."""

from __future__ import annotations

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from tests.integration.ledger.conftest import LedgerServer, chips

ALICE = "player:alice:CHIP"


@pytest.mark.parametrize(
    "before", ["0-0", "00-000", "18446744073709551616-0", "1-18446744073709551616"]
)
def test_history_before_an_impossible_cursor_is_invalid_argument(
    ledger: LedgerServer, before: str
) -> None:
    stub = ledger.stub()
    stub.OpenAccount(
        ledger_pb2.OpenAccountRequest(
            kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name="alice", currency="CHIP"
        )
    )
    stub.Deposit(
        ledger_pb2.DepositRequest(idempotency_key="fund", account_id=ALICE, amount=chips(10))
    )
    with pytest.raises(grpc.RpcError) as caught:
        stub.History(ledger_pb2.HistoryRequest(account_id=ALICE, before=before))
    error = caught.value
    assert isinstance(error, grpc.Call)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert "next_cursor" in (error.details() or "")
    page = stub.History(ledger_pb2.HistoryRequest(account_id=ALICE))
    assert [m.balance_delta for m in page.movements] == [10, 0]  # the deposit, the opening
    # A real cursor still pages (the oldest movement's: nothing before it).
    older = stub.History(
        ledger_pb2.HistoryRequest(account_id=ALICE, before=page.movements[-1].cursor)
    )
    assert list(older.movements) == []
