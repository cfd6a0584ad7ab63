"""A sharded ledger on a real Redis: what only shards have.

A process that dies after a transfer's debit (its destination shard's store fails every
write, as a dead process writes nothing more) leaves a pending record that the recovery
sweep of another process finishes exactly once; a destination that refuses the chips (as
the commit script answers a credit beyond the limit) gets them returned, and the command
and its replays answer FAILED_PRECONDITION; a key is one command in the whole ledger;
nobody but the ledger names a transit account.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import grpc
import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.ledger.application import STEP_PREFIX, LedgerApplication
from services.ledger.core.shards import shard_of, transit_account
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.server import shard_namespace
from services.ledger.store import Commit, CommitResult, Stale
from services.shared.auth import Principal, Role
from services.shared.errors import FailedPrecondition, InvalidArgument, Unavailable

from .conftest import LedgerServer, credit, debit, start_ledger

pytestmark = pytest.mark.integration

SHARDS = 4
SERVICE = Principal("table-service", Role.SERVICE)
PLAYERS = [f"player:p{n}:CHIP" for n in range(16)]


class DyingStore:
    """A real store whose writes fail from `dead` on: the process that owns it has died.
    `full`: every credit step is answered as the commit script answers a credit that would
    take a balance beyond the limit (which a conserved currency never reaches: no account
    can hold more than the world paid in, itself within the limit)."""

    def __init__(self, store: RedisLedgerStore) -> None:
        self._store = store
        self.dead = False
        self.full = False

    def commit(self, commit: Commit) -> CommitResult:
        if self.dead:
            raise Unavailable("the process died")
        if self.full and commit.idempotency_key.startswith(STEP_PREFIX):
            return Stale("balance of player:x:CHIP would leave the limit")
        return self._store.commit(commit)

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)


def stores(client: redis.Redis, namespace: str) -> list[RedisLedgerStore]:
    return [
        RedisLedgerStore(client, namespace=shard_namespace(namespace, n, SHARDS), shard=n)
        for n in range(SHARDS)
    ]


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(redis_url)
    yield connection
    connection.close()


def chips(amount: int) -> chips_pb2.ChipAmount:
    return chips_pb2.ChipAmount(currency="CHIP", amount=amount)


def two_shards() -> tuple[str, str]:
    source = PLAYERS[0]
    target = next(p for p in PLAYERS if shard_of(p, SHARDS) != shard_of(source, SHARDS))
    return source, target


def open_and_fund(app: LedgerApplication, accounts: Sequence[str], amount: int) -> None:
    for account_id in accounts:
        app.open_account(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=account_id.split(":")[1], currency="CHIP"
            ),
            SERVICE,
        )
    app.deposit(
        ledger_pb2.DepositRequest(
            idempotency_key="fund", account_id=accounts[0], amount=chips(amount)
        ),
        SERVICE,
    )


def transfer(key: str, source: str, target: str, amount: int) -> ledger_pb2.TransferRequest:
    return ledger_pb2.TransferRequest(
        idempotency_key=key, legs=[debit(source, amount), credit(target, amount)]
    )


def balance(app: LedgerApplication, account_id: str) -> int:
    request = ledger_pb2.GetBalanceRequest(account_id=account_id)
    return app.get_balance(request, SERVICE).balance.balance


def audit(app: LedgerApplication) -> ledger_pb2.AuditResponse:
    return app.audit(ledger_pb2.AuditRequest(), SERVICE)


class Stuck(NamedTuple):
    """A 40-chip transfer from `source` to `target` whose process died after the debit: its
    destination shard's store was dead (`dying[dest]`) when the credit was due."""

    source: str
    target: str
    dest: int
    real: list[RedisLedgerStore]
    dying: list[DyingStore]
    first: LedgerApplication


def stuck_after_the_debit(client: redis.Redis, key_prefix: str) -> Stuck:
    source, target = two_shards()
    dest = shard_of(target, SHARDS)
    real = stores(client, key_prefix)
    dying = [DyingStore(store) for store in real]
    first = LedgerApplication(dying)  # type: ignore[arg-type]
    open_and_fund(first, [source, target], 1000)
    dying[dest].dead = True
    with pytest.raises(Unavailable):
        first.transfer(transfer("buy", source, target, 40), SERVICE)
    return Stuck(source, target, dest, real, dying, first)


def test_a_process_dead_after_the_debit_leaves_a_record_the_sweep_finishes_once(
    client: redis.Redis, key_prefix: str
) -> None:
    source, target, dest, real, dying, first = stuck_after_the_debit(client, key_prefix)
    other = LedgerApplication(real)
    pending = audit(other)
    assert pending.clean, pending.differences
    assert [(t.currency, t.total) for t in pending.in_flight] == [("CHIP", 40)]
    assert balance(other, source) == 960 and balance(other, target) == 0
    # Too young for the sweep: left to its own process a while.
    assert other.recover(60_000, 0) == 0
    assert other.recover(0, 2**62) == 1
    assert other.recover(0, 2**62) == 0
    assert balance(other, source) == 960 and balance(other, target) == 40
    finished = audit(other)
    assert finished.clean and [t.total for t in finished.in_flight] == [0]
    # The caller's retry gets the first answer; nothing moves again.
    dying[dest].dead = False
    answer = first.transfer(transfer("buy", source, target, 40), SERVICE)
    assert answer.entry_id == "buy"
    assert balance(other, target) == 40 and audit(other).clean


def test_a_refused_credit_returns_the_chips_and_the_command_fails(
    client: redis.Redis, key_prefix: str
) -> None:
    source, target, dest, real, dying, first = stuck_after_the_debit(client, key_prefix)
    dying[dest].dead = False
    dying[dest].full = True
    assert first.recover(0, 2**62) == 1
    assert balance(first, source) == 1000 and balance(first, target) == 0
    report = audit(first)
    assert report.clean, report.differences
    assert [t.total for t in report.in_flight] == [0]
    status = real[shard_of(source, SHARDS)].load_transfer("buy")
    assert status is not None and status[1].value == "compensated"
    dying[dest].full = False
    # The refusal is recorded: the replay fails the same way and nothing moves.
    with pytest.raises(FailedPrecondition, match="returned"):
        first.transfer(transfer("buy", source, target, 40), SERVICE)
    assert balance(first, source) == 1000 and balance(first, target) == 0
    assert audit(first).clean


def test_a_key_names_one_command_across_shards(client: redis.Redis, key_prefix: str) -> None:
    app = LedgerApplication(stores(client, key_prefix))
    homes: dict[int, str] = {}
    for player in PLAYERS:
        homes.setdefault(shard_of(player, SHARDS), player)
    first, second = list(homes.values())[:2]
    open_and_fund(app, [first, second], 100)
    app.deposit(
        ledger_pb2.DepositRequest(idempotency_key="fund2", account_id=second, amount=chips(100)),
        SERVICE,
    )
    app.transfer(transfer("once", first, second, 5), SERVICE)
    # The same key from an account of another shard is another command: refused, not run.
    with pytest.raises(InvalidArgument, match="reused"):
        app.transfer(transfer("once", second, first, 5), SERVICE)
    assert balance(app, first) == 95 and balance(app, second) == 105
    assert audit(app).clean


@pytest.fixture
def sharded(redis_url: str, key_prefix: str) -> Iterator[LedgerServer]:
    server, handle = start_ledger(redis_url, key_prefix, shards=SHARDS)
    yield handle
    server.stop(0).wait()
    handle.close()


def test_no_caller_names_a_transit_account(sharded: LedgerServer) -> None:
    stub = sharded.stub()
    source, _ = two_shards()
    transit = transit_account(0, "CHIP").id
    stub.OpenAccount(
        ledger_pb2.OpenAccountRequest(
            kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=source.split(":")[1], currency="CHIP"
        )
    )
    for request in (
        ledger_pb2.OpenAccountRequest(
            kind=ledger_pb2.ACCOUNT_KIND_TRANSIT, name="shard-0", currency="CHIP"
        ),
    ):
        with pytest.raises(grpc.RpcError) as info:
            stub.OpenAccount(request)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        stub.Transfer(transfer("t", transit, source, 1))
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "transit" in (info.value.details() or "")
    with pytest.raises(grpc.RpcError) as info:
        stub.Deposit(
            ledger_pb2.DepositRequest(idempotency_key="d", account_id=transit, amount=chips(1))
        )
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert stub.Audit(ledger_pb2.AuditRequest()).clean
