"""A requested bot's chips against the real table and ledger: every round of chips issued for
the bot is closed by its seat or by a return to where it came from, once.

The seater (`GrpcBotSeater`, what the `seat_bot` task runs) is driven here in process, with no
worker and no scheduler, so the test decides when a human takes the seat the bot is about to
take: the channel it talks to the table through lets a human join first (a real JoinTable on
the real table), exactly the race a busy table gives it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import TypeVar

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2
from services.shared import auth
from services.shared.channels import connect
from services.table.ports import NoScheduler
from services.workers.bot_chips import issue_key, return_key
from services.workers.bot_seats import GrpcBotSeater, SeatLost, SeatOutcome, seated_bot_id
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, Platform, create_table, seat, view_of

from .table_stack import table_stack

pytestmark = pytest.mark.integration
BUY_IN = 200  # 100 big blinds at 1/2

# intercept_unary_unary is generic over the request and response types (grpc's stubs).
Request = TypeVar("Request")
Response = TypeVar("Response")


class JoinFirst(grpc.UnaryUnaryClientInterceptor):
    """Runs `before` (once) right before the next JoinTable goes out on this channel."""

    def __init__(self) -> None:
        self.before: Callable[[], object] | None = None  # its result is not used

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Request], grpc._CallFuture[Response]],
        details: grpc.ClientCallDetails,
        request: Request,
    ) -> grpc._CallFuture[Response]:
        if details.method.endswith("/JoinTable") and self.before is not None:
            before, self.before = self.before, None
            before()
        return continuation(details, request)


@pytest.fixture(scope="module")
def platform(redis_server: RedisServer) -> Iterator[Platform]:
    with table_stack(
        redis_server.url, f"ledger-bot-chips-{uuid.uuid4().hex[:6]}", NoScheduler()
    ) as p:
        yield p


@pytest.fixture
def seater(platform: Platform) -> Iterator[tuple[GrpcBotSeater, JoinFirst]]:
    hook = JoinFirst()
    table = grpc.intercept_channel(connect(f"127.0.0.1:{platform.port}"), hook)
    service = auth.issue_token(KEY, "workers", auth.Role.SERVICE, 600)
    ledger = connect(f"127.0.0.1:{platform.ledger_port}", service)
    yield GrpcBotSeater(table, ledger, KEY), hook
    table.close()
    ledger.close()


def movements(platform: Platform, account: str) -> list[tuple[str, int]]:
    """(reference, balance change) of every chip movement, oldest first."""
    page = platform.ledger().History(ledger_pb2.HistoryRequest(account_id=account, limit=500))
    return [(m.reference, m.balance_delta) for m in reversed(page.movements) if m.balance_delta]


def two_seat_table_with_a_sitting_out_human(platform: Platform) -> tuple[str, str]:
    """Seat 1 taken by a human who sits out (so no hand starts); seat 0 free for bot 0."""
    table_id = create_table(platform, seats=2, max_buy_in=1000, action_time_ms=30_000)
    human = f"alice-{uuid.uuid4().hex[:6]}"
    seat(platform, table_id, human, 1, BUY_IN).SitOut(
        table_pb2.SitOutRequest(table_id=table_id, idempotency_key="out")
    )
    return table_id, human


def test_a_bot_that_loses_its_seat_returns_its_chips_once_and_sits_when_a_seat_frees(
    platform: Platform, seater: tuple[GrpcBotSeater, JoinFirst]
) -> None:
    seater_, hook = seater
    table_id, _ = two_seat_table_with_a_sitting_out_human(platform)
    bot = seated_bot_id(table_id, 0, "random", 0.0)
    account = f"player:{bot}:CHIP"
    bob = f"bob-{uuid.uuid4().hex[:6]}"
    platform.fund(bob, BUY_IN)
    bob_table = platform.table(bob)
    hook.before = lambda: bob_table.JoinTable(
        table_pb2.JoinTableRequest(
            table_id=table_id, seat=0, buy_in=BUY_IN, idempotency_key="join-bob"
        )
    )

    # Bob takes seat 0 between the bot's look at the table and its JoinTable.
    with pytest.raises(SeatLost):
        seater_.seat(table_id, 0, "random", 0.0)
    assert platform.balance(account) == 0, "the chips issued for a seat it lost stayed"
    assert movements(platform, account) == [
        (issue_key(table_id, 0, 0), BUY_IN),
        (return_key(table_id, 0, 0), -BUY_IN),
    ]

    # The task's next tries find the table full: nothing is issued, nothing returned again.
    assert seater_.seat(table_id, 0, "random", 0.0) is SeatOutcome.NO_SEAT
    assert seater_.give_up(table_id, 0, "random", 0.0) is SeatOutcome.GAVE_UP
    assert len(movements(platform, account)) == 2

    # Bob leaves (no hand is running: at once); the next try is a new round and sits down.
    bob_table.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    assert seater_.seat(table_id, 0, "random", 0.0) is SeatOutcome.SEATED
    assert seater_.seat(table_id, 0, "random", 0.0) is SeatOutcome.ALREADY
    assert [s.player_id for s in view_of(bob_table, table_id).seats if s.seat == 0] == [bot]
    assert platform.balance(account) == 0  # its one buy-in is on the table
    issued = [delta for ref, delta in movements(platform, account) if ref.startswith("seat-bot/")]
    assert issued == [BUY_IN, -BUY_IN, BUY_IN]
    # The table's escrow holds the human's and the bot's buy-ins, nothing else.
    assert platform.balance(f"table:{table_id}:CHIP") == 2 * BUY_IN


def test_a_bot_is_not_seated_at_a_closing_table_and_keeps_no_chips(
    platform: Platform, seater: tuple[GrpcBotSeater, JoinFirst]
) -> None:
    seater_, _ = seater
    table_id, _ = two_seat_table_with_a_sitting_out_human(platform)
    closed = platform.table("house", auth.Role.ADMIN).CloseTable(
        table_pb2.CloseTableRequest(table_id=table_id, idempotency_key="close")
    )
    assert closed.status == table_pb2.TABLE_STATUS_CLOSED  # no hand was running
    assert seater_.seat(table_id, 0, "random", 0.0) is SeatOutcome.REFUSED
    bot = seated_bot_id(table_id, 0, "random", 0.0)
    assert platform.balance(f"player:{bot}:CHIP") == 0
    assert [ref for ref, _ in movements(platform, f"player:{bot}:CHIP")] == []
    assert not view_of(platform.table("house", auth.Role.ADMIN), table_id).seats


def test_chips_a_crashed_try_left_out_are_returned_once_however_often_the_task_gives_up(
    platform: Platform, seater: tuple[GrpcBotSeater, JoinFirst]
) -> None:
    seater_, _ = seater
    table_id, _ = two_seat_table_with_a_sitting_out_human(platform)
    bot = seated_bot_id(table_id, 0, "tight", 0.5)
    account = f"player:{bot}:CHIP"
    # A try issued round 0's chips and died before joining (the worker was killed).
    platform.fund(bot, BUY_IN, key=issue_key(table_id, 0, 0))

    # Redelivered, retried, duplicated: every give-up returns the same round, once.
    for _ in range(3):
        assert seater_.give_up(table_id, 0, "tight", 0.5) is SeatOutcome.GAVE_UP
    assert platform.balance(account) == 0
    assert movements(platform, account) == [
        (issue_key(table_id, 0, 0), BUY_IN),
        (return_key(table_id, 0, 0), -BUY_IN),
    ]


def test_giving_up_before_any_account_was_opened_opens_none(
    platform: Platform, seater: tuple[GrpcBotSeater, JoinFirst]
) -> None:
    # Every try failed before the bot's account was opened (the ledger was down): giving up
    # reads the account, finds none, and leaves none behind (no empty account per bot).
    seater_, _ = seater
    table_id, _ = two_seat_table_with_a_sitting_out_human(platform)
    account = f"player:{seated_bot_id(table_id, 0, 'random', 0.0)}:CHIP"
    assert seater_.give_up(table_id, 0, "random", 0.0) is SeatOutcome.GAVE_UP
    with pytest.raises(grpc.RpcError) as missing:
        platform.ledger().GetBalance(ledger_pb2.GetBalanceRequest(account_id=account))
    assert missing.value.code() is grpc.StatusCode.NOT_FOUND


def test_a_try_after_a_crash_joins_with_the_chips_already_issued_not_new_ones(
    platform: Platform, seater: tuple[GrpcBotSeater, JoinFirst]
) -> None:
    seater_, _ = seater
    table_id, _ = two_seat_table_with_a_sitting_out_human(platform)
    bot = seated_bot_id(table_id, 0, "equity", 0.25)
    account = f"player:{bot}:CHIP"
    platform.fund(bot, BUY_IN, key=issue_key(table_id, 0, 0))
    assert seater_.seat(table_id, 0, "equity", 0.25) is SeatOutcome.SEATED
    assert platform.balance(account) == 0
    issued = [delta for ref, delta in movements(platform, account) if ref.startswith("seat-bot/")]
    assert issued == [BUY_IN]  # one issue, now on the table
