"""What a new user hit on the way, each refused now with a message they can act on."""

from __future__ import annotations

import time

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    passive_action,
    seat,
    view_of,
    wait_for_turn,
)

pytestmark = pytest.mark.integration


def _refused(call: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()  # type: ignore[operator]
    return info.value


def _options(seats: int = 2) -> table_pb2.TableOptions:
    return table_pb2.TableOptions(
        game=table_pb2.GAME_TEXAS_HOLDEM,
        structure=table_pb2.STRUCTURE_NO_LIMIT,
        seats=seats,
        small_blind=1,
        big_blind=2,
        min_buy_in=20,
        max_buy_in=400,
    )


def test_a_taken_table_id_with_other_options_is_already_exists(platform: Platform) -> None:
    admin = platform.table("house", auth.Role.ADMIN)
    first = table_pb2.CreateTableRequest(
        table_id="first-use-1", idempotency_key="k1", options=_options(2)
    )
    created = admin.CreateTable(first)
    assert admin.CreateTable(first) == created  # an identical retry: the same answer
    other = table_pb2.CreateTableRequest(
        table_id="first-use-1", idempotency_key="k2", options=_options(3)
    )
    error = _refused(lambda: admin.CreateTable(other))
    assert error.code() is grpc.StatusCode.ALREADY_EXISTS
    assert "first-use-1" in (error.details() or "")
    same_key = table_pb2.CreateTableRequest(
        table_id="first-use-1", idempotency_key="k1", options=_options(3)
    )
    assert _refused(lambda: admin.CreateTable(same_key)).code() is grpc.StatusCode.ALREADY_EXISTS
    assert view_of(admin, "first-use-1").options.seats == 2


def test_joining_a_full_table_at_the_first_free_seat_says_it_is_full(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    seat(platform, table_id, "alice", 0, 100)
    seat(platform, table_id, "bob", 1, 100)
    platform.fund("carol", 100)
    carol = platform.table("carol")
    join = table_pb2.JoinTableRequest(table_id=table_id, seat=-1, buy_in=100, idempotency_key="c")
    error = _refused(lambda: carol.JoinTable(join))
    assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == f"table {table_id} is full: all 2 seats are taken"


def test_a_holdem_table_without_blinds_is_refused(platform: Platform) -> None:
    admin = platform.table("house", auth.Role.ADMIN)
    options = _options()
    options.small_blind = options.big_blind = 0
    request = table_pb2.CreateTableRequest(
        table_id="no-blinds", idempotency_key="k", options=options
    )
    error = _refused(lambda: admin.CreateTable(request))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "small_blind and big_blind" in (error.details() or "")


def test_the_text_history_heads_each_street_once_and_describes_every_shown_hand(
    platform: Platform,
) -> None:
    table_id = create_table(platform, seats=2)
    stubs = {
        0: seat(platform, table_id, "alice", 0, 200),
        1: seat(platform, table_id, "bob", 1, 200),
    }
    deadline = time.monotonic() + 30
    while view_of(stubs[0], table_id).hand_number < 2:  # both check or call it down
        assert time.monotonic() < deadline
        view = wait_for_turn(stubs[0], table_id)
        if view.to_act < 0 or view.hand_number != 1:
            continue
        mine = view_of(stubs[view.to_act], table_id)
        action, amount, cards = passive_action(mine)
        try:
            act(stubs[view.to_act], table_id, 1, action, amount, cards)
        except grpc.RpcError as exc:  # the view moved on between two looks
            assert exc.code() is grpc.StatusCode.FAILED_PRECONDITION, exc.details()
    text = (
        stubs[0]
        .GetHandHistory(table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=1))
        .text
    )
    headers = [line for line in text.splitlines() if line.startswith("***")]
    assert len(headers) == len(set(headers)), text
    assert {"*** FLOP ***", "*** TURN ***", "*** RIVER ***", "*** SHOWDOWN ***"} <= set(headers)
    shows = [line for line in text.splitlines() if " shows " in line]
    assert len(shows) == 2 and all(line.endswith(")") for line in shows), text
