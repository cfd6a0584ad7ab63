"""32 clients hammering transfers among a few accounts over real gRPC and real Redis."""

from __future__ import annotations

import random
import threading
from collections import Counter

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from services.ledger.store import Concurrency

from .conftest import LedgerServer, balance, chips, credit, debit, open_accounts, start_ledger

pytestmark = pytest.mark.integration

PLAYERS = [f"player:p{n}:CHIP" for n in range(4)]
CLIENTS = 32


def hammer(ledger: LedgerServer, transfers_per_client: int) -> Counter[str]:
    """Run the clients; return the net change per account of every acknowledged transfer."""
    setup = ledger.stub()
    open_accounts(setup, *[(ledger_pb2.ACCOUNT_KIND_PLAYER, f"p{n}") for n in range(4)])
    for account_id in PLAYERS:
        setup.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=f"fund/{account_id}", account_id=account_id, amount=chips(300)
            )
        )
    stubs = [ledger.stub() for _ in range(CLIENTS)]
    acknowledged: Counter[str] = Counter()
    lock = threading.Lock()
    failures: list[BaseException] = []
    start = threading.Barrier(CLIENTS)

    def client(number: int) -> None:
        rng = random.Random(number)
        start.wait()
        try:
            for n in range(transfers_per_client):
                source, target = rng.sample(PLAYERS, 2)
                amount = rng.randint(1, 120)
                request = ledger_pb2.TransferRequest(
                    idempotency_key=f"c{number}/{n}",
                    legs=[debit(source, amount), credit(target, amount)],
                )
                try:
                    stubs[number].Transfer(request, timeout=30)
                except grpc.RpcError as exc:
                    if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    continue
                with lock:
                    acknowledged[source] -= amount
                    acknowledged[target] += amount
        except BaseException as exc:  # reported in the main thread
            failures.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[:3]
    return acknowledged


@pytest.mark.parametrize(
    ("concurrency", "per_client"), [(Concurrency.CHECKED, 12), (Concurrency.SERIAL, 4)]
)
def test_concurrent_transfers_lose_nothing_and_never_overdraw(
    redis_url: str, key_prefix: str, concurrency: Concurrency, per_client: int
) -> None:
    namespace = f"{key_prefix[:40]}-{concurrency.value}".replace("[", "-").replace("]", "-")
    server, ledger = start_ledger(redis_url, namespace, concurrency)
    try:
        acknowledged = hammer(ledger, per_client)
        stub = ledger.stub()
        for account_id in PLAYERS:
            live = balance(stub, account_id)
            assert live.balance == 300 + acknowledged[account_id]
            assert live.balance >= 0
        report = stub.Audit(ledger_pb2.AuditRequest())
        assert report.clean, report.differences
        assert sum(acknowledged.values()) == 0
        assert any(acknowledged.values())
    finally:
        for channel in ledger.channels:
            channel.close()
        server.stop(0).wait()
