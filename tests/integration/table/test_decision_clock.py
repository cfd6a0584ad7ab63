"""A pending decision's clock moves only by the rules, never because of another command.

Joining, topping up and sitting out while a seat is to act do not change that seat's
decision, so they must not request it again: a new ActionRequested would carry a fresh
deadline (restarting the acting player's clock) and a new action number (making the
workers' scheduled timeout for the real decision stale).
"""

from __future__ import annotations

import time

import redis

from croupier.table.v1 import events_pb2, table_pb2
from services.shared.eventstore import RedisEventStore, stream_key
from services.table import codec
from tests.integration.table.conftest import Platform, create_table, seat, view_of


def requests_of(redis_url: str, table_id: str) -> list[tuple[int, int, int, int]]:
    """(hand, seat, action number, deadline) of every ActionRequested the table appended."""
    client = redis.Redis.from_url(redis_url)
    try:
        recorded = RedisEventStore(client, codec.registry()).read(stream_key("table", table_id))
    finally:
        client.close()
    return [
        (m.hand, m.seat, m.action_number, m.deadline_unix_ms)
        for m in (r.message for r in recorded)
        if isinstance(m, events_pb2.ActionRequested)
    ]


def test_other_commands_during_a_decision_leave_its_deadline_alone(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=4, action_time_ms=30_000)
    players = {n: seat(platform, table_id, name, n, 200) for n, name in enumerate(("ann", "bo"))}
    first = view_of(players[0], table_id)
    assert first.hand_number == 1 and first.deadline_unix_ms > 0
    waiting = (first.to_act, first.action_number, first.deadline_unix_ms)
    other = players[1 - first.to_act]

    time.sleep(0.05)  # any new request would carry a later deadline
    carol = seat(platform, table_id, "carol", 2, 100)  # joins during the hand
    platform.fund("carol", 50)
    time.sleep(0.05)
    carol.TopUp(table_pb2.TopUpRequest(table_id=table_id, amount=50, idempotency_key="more"))
    time.sleep(0.05)
    other.SitOut(table_pb2.SitOutRequest(table_id=table_id, idempotency_key="brb"))

    now = view_of(players[0], table_id)
    assert (now.to_act, now.action_number, now.deadline_unix_ms) == waiting
    assert [s.stack for s in now.seats if s.player_id == "carol"] == [150]
    asked = requests_of(redis_url, table_id)
    assert asked == [(1, first.to_act, first.action_number, first.deadline_unix_ms)], asked

    # The decision itself moves the clock on: the next seat gets a new request.
    acting = players[first.to_act]
    acting.Act(
        table_pb2.ActRequest(
            table_id=table_id, hand_number=1, action=table_pb2.ACTION_CALL, idempotency_key="c"
        )
    )
    asked = requests_of(redis_url, table_id)
    assert len(asked) == 2 and asked[1][2] == first.action_number + 1, asked
