"""The sweeper's scan for requested bots that never sat down, against the real table service:
a table whose requested bots have all bought in (or that asked for none) is read once, not at
every rebuild."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TypeVar

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.shared import auth
from services.shared.channels import connect
from services.table.ports import NoScheduler
from services.workers.bot_seat_scan import GrpcPendingBotSeats
from services.workers.bot_seats import GrpcBotSeater, SeatOutcome
from services.workers.ports import BotSeatRequest
from tests.fixtures.redis_server import RedisServer
from tests.integration.table.conftest import KEY, Platform, create_table

from .table_stack import table_stack

pytestmark = pytest.mark.integration

# intercept_unary_unary is generic over the request and response types (grpc's stubs).
Request = TypeVar("Request")
Response = TypeVar("Response")


class CountViews(grpc.UnaryUnaryClientInterceptor):
    def __init__(self) -> None:
        self.reads: Counter[str] = Counter()

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Request], grpc._CallFuture[Response]],
        details: grpc.ClientCallDetails,
        request: Request,
    ) -> grpc._CallFuture[Response]:
        if details.method.endswith("/GetTableView"):
            assert isinstance(request, table_pb2.GetTableViewRequest)
            self.reads[request.table_id] += 1
        return continuation(details, request)


@pytest.fixture(scope="module")
def platform(redis_server: RedisServer) -> Iterator[Platform]:
    with table_stack(redis_server.url, f"ledger-scan-{uuid.uuid4().hex[:6]}", NoScheduler()) as p:
        yield p


def test_tables_whose_requested_bots_all_bought_in_are_not_read_again(platform: Platform) -> None:
    service = auth.issue_token(KEY, "workers", auth.Role.SERVICE, 600)
    counter = CountViews()
    channel = grpc.intercept_channel(connect(f"127.0.0.1:{platform.port}", service), counter)
    ledger = connect(f"127.0.0.1:{platform.ledger_port}", service)
    try:
        no_bots = create_table(platform, seats=3)
        waiting = create_table(platform, seats=4, bots=[("random", 0.0), ("tight", 0.5)])
        seated = create_table(platform, seats=4, bots=[("equity", 0.25)])
        as_bot = connect(f"127.0.0.1:{platform.port}")
        assert GrpcBotSeater(as_bot, ledger, KEY).seat(seated, 0, "equity", 0.25) is (
            SeatOutcome.SEATED
        )
        as_bot.close()
        ours = {no_bots, waiting, seated}
        scan = GrpcPendingBotSeats(channel)

        for _ in range(3):  # three rebuilds
            missing = [r for r in scan.unseated_bots() if r.table_id in ours]
            assert missing == [
                BotSeatRequest(waiting, 0, "random", 0.0),
                BotSeatRequest(waiting, 1, "tight", 0.5),
            ]
        # The two tables with nothing to seat were read by the first scan only; the table
        # still waiting for its bots, at every scan.
        assert {t: counter.reads[t] for t in ours} == {no_bots: 1, seated: 1, waiting: 3}
    finally:
        channel.close()
        ledger.close()
