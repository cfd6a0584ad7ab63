"""The game-agnostic envelope over gRPC: a move in its game's own message, who may act and
every open deadline in the view, a timeout named by its deadline id, ListTables by pages."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth

from .conftest import Platform, create_table, seat, view_of, wait_for_turn

pytestmark = pytest.mark.integration


def heads_up(
    platform: Platform, action_time_ms: int = 0
) -> tuple[str, dict[int, table_pb2_grpc.TableServiceStub]]:
    table_id = create_table(platform, seats=2, action_time_ms=action_time_ms)
    stubs = {n: seat(platform, table_id, f"p{n}-{uuid.uuid4().hex[:8]}", n, 200) for n in (0, 1)}
    return table_id, stubs


def test_the_view_names_who_may_act_and_every_open_deadline_by_id(platform: Platform) -> None:
    table_id, _ = heads_up(platform, action_time_ms=60_000)
    view = wait_for_turn(platform.table("house", auth.Role.ADMIN), table_id)
    assert list(view.acting_seats) == [view.to_act]
    [deadline] = view.deadlines
    assert deadline.seat == view.to_act
    assert deadline.id == f"{view.hand_number}/{view.action_number}"
    assert deadline.deadline_unix_ms == view.deadline_unix_ms > time.time() * 1000
    assert not deadline.from_time_bank
    # The poker part of the view says the same as its first spelling.
    assert view.poker.legal_actions == [] and view.poker.button == view.button
    assert [s.seat for s in view.poker.seats] == [s.seat for s in view.seats]


def test_a_timeout_named_by_its_deadline_id_applies_once_due(platform: Platform) -> None:
    table_id, _ = heads_up(platform, action_time_ms=200)
    house = platform.table("house", auth.Role.ADMIN)
    view = wait_for_turn(house, table_id)
    [deadline] = view.deadlines
    time.sleep(max(0.0, deadline.deadline_unix_ms / 1000 - time.time()) + 0.02)
    service = platform.table("workers", auth.Role.SERVICE)
    request = table_pb2.ApplyTimeoutRequest(table_id=table_id, deadline_id=deadline.id)
    assert service.ApplyTimeout(request).applied
    assert not service.ApplyTimeout(request).applied  # the decision is made: a no-op


def test_a_deadline_id_that_names_no_decision_is_refused(platform: Platform) -> None:
    table_id, _ = heads_up(platform)
    service = platform.table("workers", auth.Role.SERVICE)
    with pytest.raises(grpc.RpcError) as refused:
        service.ApplyTimeout(table_pb2.ApplyTimeoutRequest(table_id=table_id, deadline_id="x"))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "not a deadline id" in (refused.value.details() or "")


def test_a_move_in_poker_s_own_message_is_applied_like_its_first_spelling(
    platform: Platform,
) -> None:
    table_id, stubs = heads_up(platform)
    view = wait_for_turn(platform.table("house", auth.Role.ADMIN), table_id)
    stub = stubs[view.to_act]
    response = stub.Act(
        table_pb2.ActRequest(
            table_id=table_id,
            poker=poker_pb2.PokerMove(action=poker_pb2.ACTION_CALL),
            idempotency_key="call",
        )
    )
    after = view_of(platform.table("house", auth.Role.ADMIN), table_id)
    assert after.version >= response.version > view.version
    assert after.to_act != view.to_act


def test_a_move_sent_in_both_spellings_is_refused_and_changes_nothing(platform: Platform) -> None:
    table_id, stubs = heads_up(platform)
    house = platform.table("house", auth.Role.ADMIN)
    view = wait_for_turn(house, table_id)
    with pytest.raises(grpc.RpcError) as refused:
        stubs[view.to_act].Act(
            table_pb2.ActRequest(
                table_id=table_id,
                action=table_pb2.ACTION_FOLD,
                poker=poker_pb2.PokerMove(action=poker_pb2.ACTION_CALL),
                idempotency_key="both",
            )
        )
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "set the move once" in (refused.value.details() or "")
    assert view_of(house, table_id).version == view.version


def test_list_tables_pages_through_every_table_once_in_order(platform: Platform) -> None:
    created = [create_table(platform) for _ in range(5)]
    alice = platform.table("alice")
    every = [s.table_id for s in alice.ListTables(table_pb2.ListTablesRequest()).tables]
    paged: list[str] = []
    token = ""
    while True:
        page = alice.ListTables(table_pb2.ListTablesRequest(page_size=2, page_token=token))
        assert len(page.tables) <= 2
        paged += [s.table_id for s in page.tables]
        token = page.next_page_token
        if not token:
            break
    assert paged == every
    assert every[-5:] == created


@pytest.mark.parametrize(
    ("page_size", "token", "words"),
    [
        (1001, "", "1..1000 tables a page"),
        (-1, "", "1..1000"),
        (2, "t9", "not one ListTables gave"),
    ],
)
def test_a_bad_page_request_is_refused(
    platform: Platform, page_size: int, token: str, words: str
) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        platform.table("alice").ListTables(
            table_pb2.ListTablesRequest(page_size=page_size, page_token=token)
        )
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert words in (refused.value.details() or "")
