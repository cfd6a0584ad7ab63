"""Post and Void read a reservation and its accounts in one round trip when this ledger process
knows the accounts (it opened the reservation), and stay right when that knowledge is stale."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.ledger.application import LedgerApplication
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.store import Snapshot
from services.shared.auth import Principal, Role

pytestmark = pytest.mark.integration

SERVICE = Principal("table", Role.SERVICE)


class CountingStore(RedisLedgerStore):
    """The Redis store, counting loads."""

    loads = 0

    def load(
        self, account_ids: Sequence[str], reservation_ids: Sequence[str], idempotency_key: str
    ) -> Snapshot:
        self.loads += 1
        return super().load(account_ids, reservation_ids, idempotency_key)


def _chips(amount: int) -> chips_pb2.ChipAmount:
    return chips_pb2.ChipAmount(currency="CHIP", amount=amount)


def _funded(app: LedgerApplication, player: str) -> str:
    for kind, name in (
        (ledger_pb2.ACCOUNT_KIND_PLAYER, player),
        (ledger_pb2.ACCOUNT_KIND_TABLE, "t1"),
    ):
        app.open_account(
            ledger_pb2.OpenAccountRequest(kind=kind, name=name, currency="CHIP"), SERVICE
        )
    account = f"player:{player}:CHIP"
    funds = ledger_pb2.DepositRequest(
        idempotency_key=f"fund-{player}", account_id=account, amount=_chips(100)
    )
    app.deposit(funds, SERVICE)
    return account


def _buy_in(app: LedgerApplication, account: str, amount: int, key: str = "seat-1/buy-in") -> str:
    legs = [
        ledger_pb2.Leg(account_id=account, side=ledger_pb2.LEG_SIDE_DEBIT, amount=_chips(amount)),
        ledger_pb2.Leg(
            account_id="table:t1:CHIP", side=ledger_pb2.LEG_SIDE_CREDIT, amount=_chips(amount)
        ),
    ]
    request = ledger_pb2.ReserveRequest(idempotency_key=key, legs=legs)
    return app.reserve(request, SERVICE).reservation_id


def _balance(app: LedgerApplication, account: str) -> tuple[int, int]:
    found = app.get_balance(ledger_pb2.GetBalanceRequest(account_id=account), SERVICE).balance
    return found.balance, found.held


def test_a_post_of_a_reservation_this_ledger_opened_reads_once(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    store = CountingStore(redis_client, namespace=key_prefix)
    app = LedgerApplication(store)
    account = _funded(app, "alice")
    reservation = _buy_in(app, account, 40)
    store.loads = 0
    app.post(ledger_pb2.PostRequest(idempotency_key="post", reservation_id=reservation), SERVICE)
    assert store.loads == 1
    assert _balance(app, account) == (60, 0) and _balance(app, "table:t1:CHIP") == (40, 0)
    # A process that did not open it reads the reservation first, then its accounts.
    again = _buy_in(app, account, 10, key="seat-2/buy-in")
    other = CountingStore(redis_client, namespace=key_prefix)
    LedgerApplication(other).void(
        ledger_pb2.VoidRequest(idempotency_key="void", reservation_id=again), SERVICE
    )
    assert other.loads == 2 and _balance(app, account) == (60, 0)


def test_a_post_whose_remembered_accounts_no_longer_match_the_legs_posts_the_legs(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    store = CountingStore(redis_client, namespace=key_prefix)
    first = LedgerApplication(store)
    alice = _funded(first, "alice")
    reservation = _buy_in(first, alice, 40)  # `first` remembers alice's and the table's
    # The store is rebuilt under the running process, and the same id now holds bob's buy-in.
    for key in redis_client.scan_iter(match=f"*{key_prefix}*"):
        redis_client.delete(key)
    second = LedgerApplication(RedisLedgerStore(redis_client, namespace=key_prefix))
    bob = _funded(second, "bob")
    assert _buy_in(second, bob, 30) == reservation
    store.loads = 0
    first.post(ledger_pb2.PostRequest(idempotency_key="post", reservation_id=reservation), SERVICE)
    assert store.loads == 2  # the remembered accounts were not trusted: read again
    assert _balance(first, bob) == (70, 0) and _balance(first, "table:t1:CHIP") == (30, 0)
