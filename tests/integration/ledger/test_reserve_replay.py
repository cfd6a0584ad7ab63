"""A replayed Reserve reports its reservation's status now, read with its stored response in
the same round trip, also when the first execution was a concurrent duplicate's."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.ledger.application import LedgerApplication
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.store import Commit, CommitResult, Snapshot
from services.shared.auth import Principal, Role

pytestmark = pytest.mark.integration

SERVICE = Principal("table", Role.SERVICE)
ALICE, TABLE = "player:alice:CHIP", "table:t1:CHIP"


class RacedStore(RedisLedgerStore):
    """The Redis store; counts loads, and runs `before_commit` once just before a commit."""

    loads = 0
    before_commit: Callable[[], object] | None = None

    def load(
        self, account_ids: Sequence[str], reservation_ids: Sequence[str], idempotency_key: str
    ) -> Snapshot:
        self.loads += 1
        return super().load(account_ids, reservation_ids, idempotency_key)

    def commit(self, commit: Commit) -> CommitResult:
        if self.before_commit is not None:
            race, self.before_commit = self.before_commit, None
            race()
        return super().commit(commit)


def _chips(amount: int) -> chips_pb2.ChipAmount:
    return chips_pb2.ChipAmount(currency="CHIP", amount=amount)


def _funded(app: LedgerApplication) -> None:
    for kind, name in (
        (ledger_pb2.ACCOUNT_KIND_PLAYER, "alice"),
        (ledger_pb2.ACCOUNT_KIND_TABLE, "t1"),
    ):
        app.open_account(
            ledger_pb2.OpenAccountRequest(kind=kind, name=name, currency="CHIP"), SERVICE
        )
    app.deposit(
        ledger_pb2.DepositRequest(idempotency_key="fund", account_id=ALICE, amount=_chips(100)),
        SERVICE,
    )


BUY_IN = ledger_pb2.ReserveRequest(
    idempotency_key="t1/join/alice/k1",
    legs=[
        ledger_pb2.Leg(account_id=ALICE, side=ledger_pb2.LEG_SIDE_DEBIT, amount=_chips(40)),
        ledger_pb2.Leg(account_id=TABLE, side=ledger_pb2.LEG_SIDE_CREDIT, amount=_chips(40)),
    ],
)


def _void(app: LedgerApplication) -> None:
    request = ledger_pb2.VoidRequest(
        idempotency_key="t1/join/alice/k1/void", reservation_id=BUY_IN.idempotency_key
    )
    app.void(request, SERVICE)


def test_a_replayed_reserve_reads_its_status_in_the_same_round_trip(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    store = RacedStore(redis_client, namespace=key_prefix)
    app = LedgerApplication(store)
    _funded(app)
    app.reserve(BUY_IN, SERVICE)
    _void(app)
    store.loads = 0
    replayed = app.reserve(BUY_IN, SERVICE)
    assert replayed.status == ledger_pb2.RESERVATION_STATUS_VOIDED
    assert store.loads == 1  # the status came with the stored response: no extra read


def test_a_reserve_that_loses_to_a_concurrent_duplicate_reports_the_status_now(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    # Between this Reserve's read and its commit, the same Reserve commits in another process
    # and its hold is voided: the commit finds the key taken and gets the stored response,
    # which says PENDING. A caller relying on it would seat chips nobody holds.
    store = RacedStore(redis_client, namespace=key_prefix)
    app = LedgerApplication(store)
    _funded(app)
    other = LedgerApplication(RedisLedgerStore(redis_client, namespace=key_prefix))

    def duplicate_then_void() -> None:
        assert other.reserve(BUY_IN, SERVICE).status == ledger_pb2.RESERVATION_STATUS_PENDING
        _void(other)

    store.before_commit = duplicate_then_void
    response = app.reserve(BUY_IN, SERVICE)
    assert store.before_commit is None  # the race ran
    assert response.reservation_id == BUY_IN.idempotency_key
    assert response.status == ledger_pb2.RESERVATION_STATUS_VOIDED
    found = app.get_balance(ledger_pb2.GetBalanceRequest(account_id=ALICE), SERVICE).balance
    assert (found.balance, found.held) == (100, 0)  # reserved once, and released
