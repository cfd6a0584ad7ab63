"""CreateTable over real gRPC refuses requested bots no worker could seat or play (an unknown
policy, a difficulty outside 0..1, more bots than seats): INVALID_ARGUMENT saying what to
change, and no table, no ledger account and no seat-bot trigger."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table.ports import NoScheduler
from services.table.server import build
from services.table.settings import TableSettings
from tests.integration.table.conftest import KEY, Platform, create_table, view_of


class RecordingScheduler(NoScheduler):
    """Remembers every seat-bot trigger the table sends (no worker runs here)."""

    def __init__(self) -> None:
        self.seat_bots: list[tuple[str, int, str, float]] = []

    def schedule_seat_bot(
        self,
        table_id: str,
        index: int,
        policy: str,
        difficulty: float,
        *,
        only_if_lost: bool = False,
    ) -> None:
        self.seat_bots.append((table_id, index, policy, difficulty))


@pytest.fixture
def recorded(
    redis_url: str, platform: Platform, key_prefix: str
) -> Iterator[tuple[Platform, RecordingScheduler]]:
    """A table-service instance on the platform's Redis and ledger whose scheduler records
    seat-bot triggers: (platform pointed at it, its scheduler)."""
    runtime = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key=KEY)
    settings = TableSettings(
        dealer_target="unused",  # creating a table deals nothing
        evaluator_target="unused",
        ledger_target=f"127.0.0.1:{platform.ledger_port}",
        redis_url=redis_url,
        attention_key=f"croupier:table:attention:{key_prefix}",
    )
    scheduler = RecordingScheduler()
    server, port = create_server(build(settings, runtime, scheduler=scheduler), runtime)
    handle = Platform(port=port, ledger_port=platform.ledger_port)
    yield handle, scheduler
    for channel in handle.channels:
        channel.close()
    server.stop(0).wait()


@pytest.mark.parametrize(
    ("bots", "seats", "says"),
    [
        ([("random", 0.0), ("equty", 0.5)], 4, ["bots[1]", "'equty'", "random, tight, equity"]),
        ([("tight", 1.5)], 4, ["bots[0] (tight)", "difficulty 1.5", "0.0..1.0"]),
        ([("tight", math.nan)], 4, ["difficulty nan", "0.0..1.0"]),
        ([("random", 0.0)] * 3, 2, ["3 bots requested", "the table has 2 seats"]),
    ],
    ids=["unknown policy", "difficulty above 1", "nan difficulty", "more bots than seats"],
)
def test_create_table_with_bots_that_could_never_sit_is_invalid_argument_and_creates_nothing(
    recorded: tuple[Platform, RecordingScheduler],
    bots: list[tuple[str, float]],
    seats: int,
    says: list[str],
) -> None:
    platform, scheduler = recorded
    table_id = f"t{uuid.uuid4().hex[:12]}"
    with pytest.raises(grpc.RpcError) as info:
        create_table(platform, table_id, seats=seats, bots=bots)
    error = info.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert all(part in (error.details() or "") for part in says), error.details()

    house = platform.table("house")
    with pytest.raises(grpc.RpcError) as missing:
        view_of(house, table_id)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    listed = house.ListTables(table_pb2.ListTablesRequest()).tables
    assert table_id not in [t.table_id for t in listed]
    with pytest.raises(grpc.RpcError) as unopened:
        platform.ledger().GetBalance(
            ledger_pb2.GetBalanceRequest(account_id=f"table:{table_id}:CHIP")
        )
    assert unopened.value.code() == grpc.StatusCode.NOT_FOUND
    assert scheduler.seat_bots == []

    # Asked for bots it can seat, the same table is created and its bots are sent for.
    create_table(platform, table_id, seats=seats, bots=[("equity", 1.0)])
    assert view_of(house, table_id).requested_bots[0].policy == "equity"
    assert scheduler.seat_bots == [(table_id, 0, "equity", 1.0)]
