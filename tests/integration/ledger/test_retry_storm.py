"""Every mutation retried 1-5 times with its key, some after the reply was lost on the way
back, some fired twice at once: each still posts exactly once."""

from __future__ import annotations

import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from croupier.ledger.v1 import events_pb2, ledger_pb2, ledger_pb2_grpc
from services.ledger.redis_store import ledger_registry
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import RedisEventStore, stream_key

from .conftest import KEY, LedgerServer, balance, chips, credit, debit, open_accounts

pytestmark = pytest.mark.integration


class DroppedReply(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE


class DropEveryOtherReply(grpc.UnaryUnaryClientInterceptor):
    """The server executes the call, then the client never sees the answer (as if the
    connection broke on the way back): the caller can only retry."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self.dropped = 0

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        outcome = continuation(details, request)
        outcome.result()  # wait until the server has answered
        with self._lock:
            self._calls += 1
            drop = self._calls % 2 == 1
            self.dropped += drop
        if drop:
            raise DroppedReply()
        return outcome


def call_until_answered(method: Any, request: Any, attempts: int) -> Any:
    """Send `request` `attempts` times (1-5) with the same key; return the last answer."""
    answer = None
    for _ in range(attempts):
        try:
            answer = method(request, timeout=30)
        except DroppedReply:
            continue
    while answer is None:
        try:
            answer = method(request, timeout=30)
        except DroppedReply:
            continue
    return answer


def test_retried_and_duplicated_mutations_post_exactly_once(ledger: LedgerServer) -> None:
    setup = ledger.stub()
    players = [f"player:r{n}:CHIP" for n in range(3)]
    open_accounts(
        setup,
        *[(ledger_pb2.ACCOUNT_KIND_PLAYER, f"r{n}") for n in range(3)],
        (ledger_pb2.ACCOUNT_KIND_TABLE, "t9"),
    )
    dropper = DropEveryOtherReply()
    token = auth.issue_token(KEY, "table-service", auth.Role.SERVICE, 600)
    channel = grpc.intercept_channel(connect(f"127.0.0.1:{ledger.port}", token), dropper)
    ledger.channels.append(channel)
    stub = ledger_pb2_grpc.LedgerServiceStub(channel)
    rng = random.Random(7)
    expected: Counter[str] = Counter()
    operations: list[tuple[Any, Any, int]] = []
    for n, account_id in enumerate(players):
        request = ledger_pb2.DepositRequest(
            idempotency_key=f"dep/{n}", account_id=account_id, amount=chips(1000)
        )
        operations.append((stub.Deposit, request, rng.randint(1, 5)))
        expected[account_id] += 1000
    for n in range(30):
        source, target = rng.sample(players, 2)
        transfer = ledger_pb2.TransferRequest(
            idempotency_key=f"xfer/{n}", legs=[debit(source, n + 1), credit(target, n + 1)]
        )
        operations.append((stub.Transfer, transfer, rng.randint(1, 5)))
        expected[source] -= n + 1
        expected[target] += n + 1
    # Deposits first (transfers need the chips), then everything else concurrently, each
    # operation also fired by two threads at once.
    for method, request, attempts in operations[:3]:
        call_until_answered(method, request, attempts)
    with ThreadPoolExecutor(max_workers=16) as pool:
        futures = [
            pool.submit(call_until_answered, method, request, attempts)
            for method, request, attempts in operations[3:]
            for _ in range(2)
        ]
        answers = [future.result() for future in futures]
    assert all(
        a.SerializeToString() == b.SerializeToString()
        for a, b in zip(answers[::2], answers[1::2], strict=True)
    )

    reserve = ledger_pb2.ReserveRequest(
        idempotency_key="t9/buyin/r0", legs=[debit(players[0], 100), credit("table:t9:CHIP", 100)]
    )
    call_until_answered(stub.Reserve, reserve, 3)
    post = ledger_pb2.PostRequest(idempotency_key="t9/buyin/r0/post", reservation_id="t9/buyin/r0")
    call_until_answered(stub.Post, post, 4)
    expected[players[0]] -= 100
    assert dropper.dropped > 30

    for account_id in players:
        assert balance(setup, account_id).balance == expected[account_id]
    events = RedisEventStore(ledger.client, ledger_registry()).read(
        stream_key("ledger", ledger.namespace)
    )
    entries = Counter(
        e.message.entry_id
        for e in events
        if isinstance(e.message, events_pb2.EntryPosted | events_pb2.ReservationPosted)
    )
    assert set(entries.values()) == {1}
    assert len(entries) == 3 + 30 + 1
    assert setup.Audit(ledger_pb2.AuditRequest()).clean
