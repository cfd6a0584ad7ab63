"""The LedgerService contract over real gRPC and real Redis."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger.redis_store import RedisLedgerStore
from services.shared.auth import Role

from .conftest import LedgerServer, balance, chips, credit, debit, open_accounts, start_ledger

P, T, H = (
    ledger_pb2.ACCOUNT_KIND_PLAYER,
    ledger_pb2.ACCOUNT_KIND_TABLE,
    ledger_pb2.ACCOUNT_KIND_HOUSE,
)
ALICE, BOB, TABLE, HOUSE = (
    "player:alice:CHIP",
    "player:bob:CHIP",
    "table:t1:CHIP",
    "house:rake:CHIP",
)

pytestmark = pytest.mark.integration


@pytest.fixture(params=[1, 4], ids=["one-shard", "four-shards"])
def ledger(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str
) -> Iterator[LedgerServer]:
    """Every contract holds for an unsharded ledger and for one over four shards (whose
    movements between shards take the two-phase protocol)."""
    server, handle = start_ledger(redis_url, key_prefix, shards=request.param)
    yield handle
    server.stop(0).wait()
    handle.close()


@pytest.fixture
def funded(ledger: LedgerServer) -> ledger_pb2_grpc.LedgerServiceStub:
    stub = ledger.stub()
    open_accounts(stub, (P, "alice"), (P, "bob"), (T, "t1"), (H, "rake"))
    stub.Deposit(
        ledger_pb2.DepositRequest(idempotency_key="d1", account_id=ALICE, amount=chips(500))
    )
    return stub


def code_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details() or ""


def test_buy_in_settlement_and_cash_out(
    funded: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    stub = funded
    reserved = stub.Reserve(
        ledger_pb2.ReserveRequest(
            idempotency_key="t1/buyin/alice/1", legs=[debit(ALICE, 300), credit(TABLE, 300)]
        )
    )
    assert reserved.reservation_id == "t1/buyin/alice/1"
    assert balance(stub, ALICE).available == 200
    stub.Post(
        ledger_pb2.PostRequest(
            idempotency_key="t1/buyin/alice/1/post", reservation_id=reserved.reservation_id
        )
    )
    stub.Transfer(
        ledger_pb2.TransferRequest(
            idempotency_key="t1/h1/settle",
            legs=[debit(TABLE, 300), credit(ALICE, 100), credit(BOB, 190), credit(HOUSE, 10)],
            metadata=ledger_pb2.EntryMetadata(table_id="t1", hand_id="h1", reason="settle"),
        )
    )
    bob = ledger.stub("bob", Role.PLAYER)
    bob.Withdraw(
        ledger_pb2.WithdrawRequest(
            idempotency_key="player:bob/cashout/1", account_id=BOB, amount=chips(190)
        )
    )
    assert [balance(stub, a).balance for a in (ALICE, BOB, TABLE, HOUSE)] == [300, 0, 0, 10]
    report = stub.Audit(ledger_pb2.AuditRequest())
    assert report.clean, report.differences
    assert [(t.currency, t.total) for t in report.totals] == [("CHIP", 0)]


def test_void_releases_the_hold(funded: ledger_pb2_grpc.LedgerServiceStub) -> None:
    funded.Reserve(
        ledger_pb2.ReserveRequest(idempotency_key="r", legs=[debit(ALICE, 100), credit(TABLE, 100)])
    )
    released = funded.Void(
        ledger_pb2.VoidRequest(idempotency_key="r/void", reservation_id="r", reason="hand aborted")
    )
    assert len(released.released_legs) == 2
    assert balance(funded, ALICE).available == 500
    code, details = code_of(
        lambda: funded.Post(ledger_pb2.PostRequest(idempotency_key="r/post", reservation_id="r"))
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION and "already voided" in details


def test_same_key_same_request_returns_the_byte_identical_response(
    funded: ledger_pb2_grpc.LedgerServiceStub,
) -> None:
    request = ledger_pb2.TransferRequest(
        idempotency_key="k", legs=[debit(ALICE, 7), credit(BOB, 7)]
    )
    first = funded.Transfer(request)
    again = funded.Transfer(request)
    assert first.SerializeToString() == again.SerializeToString()
    assert balance(funded, BOB).balance == 7


def test_same_key_different_request_is_invalid(funded: ledger_pb2_grpc.LedgerServiceStub) -> None:
    funded.Transfer(
        ledger_pb2.TransferRequest(idempotency_key="k", legs=[debit(ALICE, 7), credit(BOB, 7)])
    )
    code, details = code_of(
        lambda: funded.Transfer(
            ledger_pb2.TransferRequest(idempotency_key="k", legs=[debit(ALICE, 8), credit(BOB, 8)])
        )
    )
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert details == "idempotency key reused with different parameters"


@pytest.mark.parametrize(
    ("legs", "code", "words"),
    [
        (
            [debit(ALICE, 900), credit(BOB, 900)],
            grpc.StatusCode.FAILED_PRECONDITION,
            "available 500 CHIP",
        ),
        (
            [debit(ALICE, 5), credit("player:zed:CHIP", 5)],
            grpc.StatusCode.NOT_FOUND,
            "player:zed:CHIP",
        ),
        ([debit(ALICE, 5), credit(BOB, 4)], grpc.StatusCode.INVALID_ARGUMENT, "do not balance"),
        ([debit(ALICE, 5), credit("bob", 5)], grpc.StatusCode.INVALID_ARGUMENT, "<kind>:<name>"),
        (
            [debit(ALICE, 0), credit(BOB, 0)],
            grpc.StatusCode.INVALID_ARGUMENT,
            "positive whole number",
        ),
    ],
)
def test_bad_transfers_fail_and_change_nothing(
    funded: ledger_pb2_grpc.LedgerServiceStub,
    legs: list[ledger_pb2.Leg],
    code: grpc.StatusCode,
    words: str,
) -> None:
    actual, details = code_of(
        lambda: funded.Transfer(ledger_pb2.TransferRequest(idempotency_key="bad", legs=legs))
    )
    assert actual is code and words in details
    assert balance(funded, ALICE).balance == 500
    assert funded.Audit(ledger_pb2.AuditRequest()).events == 6  # 4 opened + external + deposit


def test_players_read_only_their_own_accounts(
    funded: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    alice = ledger.stub("alice", Role.PLAYER)
    assert balance(alice, ALICE).balance == 500
    code, _ = code_of(lambda: balance(alice, BOB))
    assert code is grpc.StatusCode.PERMISSION_DENIED
    code, _ = code_of(lambda: alice.Audit(ledger_pb2.AuditRequest()))
    assert code is grpc.StatusCode.PERMISSION_DENIED
    admin = ledger.stub("root", Role.ADMIN)
    assert admin.Audit(ledger_pb2.AuditRequest()).clean


def test_players_cannot_move_chips_except_their_own_cash_out(
    funded: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    alice = ledger.stub("alice", Role.PLAYER)
    code, _ = code_of(
        lambda: alice.Transfer(
            ledger_pb2.TransferRequest(idempotency_key="x", legs=[debit(ALICE, 5), credit(BOB, 5)])
        )
    )
    assert code is grpc.StatusCode.PERMISSION_DENIED
    code, _ = code_of(
        lambda: alice.Withdraw(
            ledger_pb2.WithdrawRequest(idempotency_key="x", account_id=BOB, amount=chips(1))
        )
    )
    assert code is grpc.StatusCode.PERMISSION_DENIED
    alice.Withdraw(
        ledger_pb2.WithdrawRequest(
            idempotency_key="player:alice/out", account_id=ALICE, amount=chips(50)
        )
    )
    assert balance(alice, ALICE).balance == 450


def test_history_pages_newest_first(funded: ledger_pb2_grpc.LedgerServiceStub) -> None:
    for n in range(5):
        funded.Transfer(
            ledger_pb2.TransferRequest(
                idempotency_key=f"t{n}", legs=[debit(ALICE, n + 1), credit(BOB, n + 1)]
            )
        )
    seen = []
    cursor = ""
    while True:
        page = funded.History(ledger_pb2.HistoryRequest(account_id=ALICE, limit=3, before=cursor))
        seen += [(m.reference, m.balance_delta) for m in page.movements]
        cursor = page.next_cursor
        if not cursor:
            break
    assert seen == [
        ("t4", -5),
        ("t3", -4),
        ("t2", -3),
        ("t1", -2),
        ("t0", -1),
        ("d1", 500),
        (ALICE, 0),
    ]


def test_a_reservation_is_resolved_once_under_concurrent_posts_and_voids(
    funded: ledger_pb2_grpc.LedgerServiceStub,
) -> None:
    funded.Reserve(
        ledger_pb2.ReserveRequest(idempotency_key="r", legs=[debit(ALICE, 100), credit(TABLE, 100)])
    )

    def resolve(n: int) -> grpc.StatusCode:
        try:
            if n % 2:
                funded.Post(ledger_pb2.PostRequest(idempotency_key=f"p{n}", reservation_id="r"))
            else:
                funded.Void(ledger_pb2.VoidRequest(idempotency_key=f"v{n}", reservation_id="r"))
        except grpc.RpcError as exc:
            return exc.code()
        return grpc.StatusCode.OK

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = list(pool.map(resolve, range(8)))
    assert codes.count(grpc.StatusCode.OK) == 1
    assert codes.count(grpc.StatusCode.FAILED_PRECONDITION) == 7
    assert funded.Audit(ledger_pb2.AuditRequest()).clean


def test_the_projection_rebuilds_from_the_journal(
    funded: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    funded.Transfer(
        ledger_pb2.TransferRequest(idempotency_key="k", legs=[debit(ALICE, 40), credit(BOB, 40)])
    )
    namespace = ledger.namespace_of(BOB)
    store = RedisLedgerStore(ledger.client, namespace=namespace)
    ledger.client.hset(f"{{ledger:{namespace}}}:balance", BOB, 1_000_000)
    report = funded.Audit(ledger_pb2.AuditRequest())
    assert not report.clean
    assert any(
        d.endswith(f"{BOB}: journal says balance 40, projection 1000000")
        for d in report.differences
    )
    replayed = store.rebuild_projection()
    assert replayed == 7 if ledger.shards == 1 else replayed > 0
    assert balance(funded, BOB).balance == 40
    assert funded.Audit(ledger_pb2.AuditRequest()).clean


def test_idempotency_records_are_kept_at_least_a_day(
    funded: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    funded.Transfer(
        ledger_pb2.TransferRequest(idempotency_key="kept", legs=[debit(ALICE, 1), credit(BOB, 1)])
    )
    # The key is kept in the shard of the account the transfer debits.
    ttl = ledger.client.ttl(f"{{ledger:{ledger.namespace_of(ALICE)}}}:response:kept")
    assert 24 * 3600 <= ttl <= 48 * 3600


def test_get_reservation_tells_pending_from_posted_and_voided(
    funded: ledger_pb2_grpc.LedgerServiceStub, ledger: LedgerServer
) -> None:
    # Any service or admin may ask about a reservation it did not reserve itself.
    def status(rid: str) -> int:
        return funded.GetReservation(ledger_pb2.GetReservationRequest(reservation_id=rid)).status

    for rid in ("kept", "used", "dropped"):
        funded.Reserve(
            ledger_pb2.ReserveRequest(
                idempotency_key=rid, legs=[debit(ALICE, 100), credit(TABLE, 100)]
            )
        )
    funded.Post(ledger_pb2.PostRequest(idempotency_key="used/post", reservation_id="used"))
    funded.Void(ledger_pb2.VoidRequest(idempotency_key="dropped/void", reservation_id="dropped"))
    replayed = funded.Reserve(
        ledger_pb2.ReserveRequest(
            idempotency_key="dropped", legs=[debit(ALICE, 100), credit(TABLE, 100)]
        )
    )
    assert replayed.reservation_id == "dropped"
    assert [status(r) for r in ("kept", "used", "dropped")] == [
        ledger_pb2.RESERVATION_STATUS_PENDING,
        ledger_pb2.RESERVATION_STATUS_POSTED,
        ledger_pb2.RESERVATION_STATUS_VOIDED,
    ]
    kept = funded.GetReservation(ledger_pb2.GetReservationRequest(reservation_id="kept"))
    assert [(leg.account_id, leg.amount.amount) for leg in kept.legs] == [
        (ALICE, 100),
        (TABLE, 100),
    ]
    missing = lambda: status("nobody")  # noqa: E731
    assert code_of(missing)[0] is grpc.StatusCode.NOT_FOUND
    # An id no Reserve key could be is refused as such, not looked up (keys are 1-200
    # printable characters); the longest possible one is merely not there.
    for bad in ("", "x" * 201, "kept\n"):
        assert code_of(partial(status, bad))[0] is grpc.StatusCode.INVALID_ARGUMENT, bad
    assert code_of(lambda: status("x" * 200))[0] is grpc.StatusCode.NOT_FOUND
    alice = ledger.stub("alice", Role.PLAYER)
    refused = lambda: alice.GetReservation(  # noqa: E731
        ledger_pb2.GetReservationRequest(reservation_id="kept")
    )
    assert code_of(refused)[0] is grpc.StatusCode.PERMISSION_DENIED


def test_a_replayed_reserve_reports_what_became_of_its_reservation(
    funded: ledger_pb2_grpc.LedgerServiceStub,
) -> None:
    # The stored response says PENDING; a retry relying on it after a Post or Void would use
    # chips no longer held for it, so the replay reports the status now (otherwise as stored).
    def reserve(rid: str) -> ledger_pb2.ReserveResponse:
        return funded.Reserve(
            ledger_pb2.ReserveRequest(
                idempotency_key=rid, legs=[debit(ALICE, 100), credit(TABLE, 100)]
            )
        )

    first = {rid: reserve(rid) for rid in ("kept", "used", "dropped")}
    assert {r.status for r in first.values()} == {ledger_pb2.RESERVATION_STATUS_PENDING}
    assert reserve("kept").SerializeToString() == first["kept"].SerializeToString()
    funded.Post(ledger_pb2.PostRequest(idempotency_key="used/post", reservation_id="used"))
    funded.Void(ledger_pb2.VoidRequest(idempotency_key="dropped/void", reservation_id="dropped"))
    used, dropped = reserve("used"), reserve("dropped")
    assert used.status == ledger_pb2.RESERVATION_STATUS_POSTED
    assert dropped.status == ledger_pb2.RESERVATION_STATUS_VOIDED
    # Still a replay: the same reservation and legs, and nothing held or moved again.
    assert (dropped.reservation_id, list(dropped.legs)) == ("dropped", list(first["dropped"].legs))
    assert (used.reservation_id, list(used.legs)) == ("used", list(first["used"].legs))
    assert (balance(funded, ALICE).balance, balance(funded, ALICE).held) == (400, 100)
