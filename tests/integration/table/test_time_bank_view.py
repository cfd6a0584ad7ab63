"""Time banks and requested bots in the table's views (GetTableView and WatchTable's first view).

No scheduler runs here: the test applies the timeout itself (as the workers would, with a
service token), so the view can be read at exactly the moment a deadline was extended.
"""

from __future__ import annotations

import time
import uuid

import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from tests.integration.table.conftest import Platform

from .conftest import act, create_table, passive_action, seat, view_of

pytestmark = pytest.mark.integration


def first_view(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> table_pb2.TableView:
    stream = stub.WatchTable(table_pb2.WatchTableRequest(table_id=table_id), timeout=5)
    try:
        message = next(iter(stream))
    finally:
        stream.cancel()
    assert message.HasField("view")
    return message.view


def banks(view: table_pb2.TableView) -> dict[int, int]:
    return {s.seat: s.time_bank_ms for s in view.seats}


def test_every_viewer_sees_each_seats_time_bank_and_when_a_deadline_is_a_bank_extension(
    platform: Platform,
) -> None:
    table_id = create_table(
        platform, seats=2, action_time_ms=150, time_bank_ms=1000, time_bank_chunk_ms=300
    )
    players = {}
    for seat_no in (0, 1):
        player = f"p{seat_no}-{uuid.uuid4().hex[:8]}"
        players[seat_no] = seat(platform, table_id, player, seat_no, 200)
    spectator = platform.table("rail", auth.Role.PLAYER)
    view = view_of(spectator, table_id)
    to_act, other = view.to_act, 1 - view.to_act
    for stub in (players[0], players[1], spectator):
        for seen in (view_of(stub, table_id), first_view(stub, table_id)):
            assert banks(seen) == {0: 1000, 1: 1000}
            assert not seen.deadline_from_time_bank

    time.sleep(max(0.0, view.deadline_unix_ms / 1000 - time.time()) + 0.02)
    service = platform.table("workers", auth.Role.SERVICE)
    response = service.ApplyTimeout(
        table_pb2.ApplyTimeoutRequest(
            table_id=table_id, hand_number=view.hand_number, action_number=view.action_number
        )
    )
    assert response.applied  # the bank's first chunk, not the default action
    # Public like stacks: the seat to act, its opponent and a spectator all see the same.
    for stub in (players[to_act], players[other], spectator):
        for seen in (view_of(stub, table_id), first_view(stub, table_id)):
            assert seen.to_act == to_act and seen.action_number == view.action_number
            assert seen.deadline_unix_ms == view.deadline_unix_ms + 300
            assert seen.deadline_from_time_bank
            assert banks(seen) == {to_act: 700, other: 1000}

    # The player acts inside the extension: the next decision has a normal deadline again.
    mine = view_of(players[to_act], table_id)
    action, amount, cards = passive_action(mine)
    act(players[to_act], table_id, mine.hand_number, action, amount, cards)
    after = view_of(spectator, table_id)
    assert after.to_act == other and after.action_number == view.action_number + 1
    assert not after.deadline_from_time_bank
    assert banks(after) == {to_act: 700, other: 1000}  # a granted chunk is spent


def test_the_view_lists_the_requested_bots_and_every_bot_that_ever_bought_in(
    platform: Platform,
) -> None:
    table_id = create_table(
        platform,
        seats=3,
        max_buy_in=1000,
        bots=[("random", 0.0), ("tight", 0.5)],
    )
    house = platform.table("house", auth.Role.ADMIN)
    view = view_of(house, table_id)
    assert [(b.policy, b.difficulty) for b in view.requested_bots] == [
        ("random", 0.0),
        ("tight", 0.5),
    ]
    assert list(view.bots_seated) == []  # this platform runs no workers: nobody seats them

    bot = f"bot-random-0-{uuid.uuid4().hex[:6]}"
    platform.fund(bot, 100)
    bot_stub = platform.table(bot, auth.Role.BOT)
    bot_stub.JoinTable(
        table_pb2.JoinTableRequest(table_id=table_id, seat=0, buy_in=100, idempotency_key="j")
    )
    assert list(view_of(house, table_id).bots_seated) == [bot]

    # Alone at the table (no hand running), so it leaves at once.
    bot_stub.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="l"))
    after = view_of(house, table_id)
    assert bot not in {s.player_id for s in after.seats}
    assert list(after.bots_seated) == [bot]  # left, but it did sit down once
    human = f"p-{uuid.uuid4().hex[:8]}"
    seat(platform, table_id, human, 1, 100)
    assert list(view_of(house, table_id).bots_seated) == [bot]  # players are not bots
