"""ApplyTimeout is judged by the table's own clock: an early trigger is refused, not acted on."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.shared import auth

from .conftest import Platform, create_table, seat, view_of

pytestmark = pytest.mark.integration


def heads_up(platform: Platform, action_time_ms: int) -> str:
    table_id = create_table(platform, seats=2, action_time_ms=action_time_ms)
    for seat_no in (0, 1):
        seat(platform, table_id, f"p{seat_no}-{uuid.uuid4().hex[:8]}", seat_no, 200)
    return table_id


def apply_timeout(platform: Platform, view: table_pb2.TableView) -> table_pb2.ApplyTimeoutResponse:
    service = platform.table("workers", auth.Role.SERVICE)
    return service.ApplyTimeout(
        table_pb2.ApplyTimeoutRequest(
            table_id=view.table_id,
            hand_number=view.hand_number,
            action_number=view.action_number,
        )
    )


def test_a_timeout_requested_before_the_recorded_deadline_is_refused_as_not_due(
    platform: Platform,
) -> None:
    table_id = heads_up(platform, action_time_ms=60_000)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    assert view.deadline_unix_ms > time.time() * 1000
    with pytest.raises(grpc.RpcError) as refused:
        apply_timeout(platform, view)
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert f"not due until {view.deadline_unix_ms}" in (refused.value.details() or "")
    after = view_of(house, table_id)
    assert (after.version, after.to_act) == (view.version, view.to_act)  # nothing changed


def test_a_timeout_requested_after_the_recorded_deadline_applies_the_default_action(
    platform: Platform,
) -> None:
    table_id = heads_up(platform, action_time_ms=200)
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    time.sleep(max(0.0, view.deadline_unix_ms / 1000 - time.time()) + 0.02)
    response = apply_timeout(platform, view)
    assert response.applied
    assert view_of(house, table_id).version > view.version
