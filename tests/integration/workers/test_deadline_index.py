"""The Redis deadline index, turn claims and seat give-ups against a real (private) Redis."""

from __future__ import annotations

import pytest
import redis

from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadline_index import RedisDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.workers.bot_turns import BotMoveOutcome, TurnClaims, play_once
from services.workers.ports import BotSeatRequest
from services.workers.seat_give_ups import RECORD_TTL_S, RedisSeatGiveUps, backoff


def test_index_returns_due_deadlines_in_order_and_moves_extended_ones(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    index = RedisDeadlineIndex(redis_client, key=f"{key_prefix}:deadlines")
    late = Deadline("t", 1, 2, 105.0)
    early = Deadline("t", 1, 1, 101.5)
    index.add(late)
    index.add(early)
    assert index.due(now=110.0, limit=10) == [early, late]
    assert index.due(now=102.0, limit=10) == [early]

    extended = Deadline("t", 1, 1, 130.0)  # a time bank moved the same decision
    index.add(extended)
    assert index.due_at_of(early) == 130.0
    index.resolve(early)  # the trigger for the old due time must not forget the new one
    assert index.contains(extended)
    index.resolve(extended)
    assert not index.contains(extended)


def test_a_turn_is_played_once_however_often_it_is_delivered(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    claims = TurnClaims(redis_client, prefix=f"{key_prefix}:bot")
    turn = BotTurn("t", 3, 4, seat=2, bot_id="bot-1", policy="random")
    plays: list[BotTurn] = []

    class Player:
        def play(self, t: BotTurn) -> BotMoveOutcome:
            plays.append(t)
            return BotMoveOutcome.ACTED

    outcomes = [
        play_once(turn, claims=claims, player=Player(), owner=f"delivery-{n}") for n in range(3)
    ]
    assert outcomes == [BotMoveOutcome.ACTED, BotMoveOutcome.DUPLICATE, BotMoveOutcome.DUPLICATE]
    assert plays == [turn]


def test_a_failed_turn_can_be_retried(redis_client: redis.Redis, key_prefix: str) -> None:
    claims = TurnClaims(redis_client, prefix=f"{key_prefix}:bot")
    turn = BotTurn("t", 3, 5, seat=2, bot_id="bot-1", policy="random")

    class Flaky:
        calls = 0

        def play(self, t: BotTurn) -> BotMoveOutcome:
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise ConnectionError("table unreachable")
            return BotMoveOutcome.ACTED

    with pytest.raises(ConnectionError):
        play_once(turn, claims=claims, player=Flaky(), owner="task-1")
    assert play_once(turn, claims=claims, player=Flaky(), owner="task-2") is BotMoveOutcome.ACTED


def test_a_tables_open_decisions_are_kept_apart_and_replaced_by_id(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    index = RedisDeadlineIndex(redis_client, key=f"{key_prefix}:deadlines")
    seat0, seat1, other = (
        Deadline("t", 1, 1, 10.0),
        Deadline("t", 1, 2, 10.0),
        Deadline("u", 1, 1, 15.0),
    )
    index.arm(seat0)
    index.arm(other)
    index.arm(seat1)  # two open decisions of one table (one per seat): both stay
    assert index.due(now=100.0, limit=10) == [seat0, seat1, other]

    # The game renamed seat 1's decision (a new id) and time-banked seat 0's: only the new
    # and the moved ones need a trigger; the renamed one leaves the index.
    renamed, banked = Deadline("t", 1, 3, 12.0), Deadline("t", 1, 1, 14.0)
    assert index.replace_table("t", [banked, renamed]) == [banked, renamed]
    assert index.due(now=100.0, limit=10) == [renamed, banked, other]
    assert index.replace_table("t", [banked, renamed]) == []  # unchanged: no new triggers
    index.resolve(renamed)  # fired
    assert index.replace_table("t", []) == []  # the table waits for nothing now
    assert index.due(now=100.0, limit=10) == [other]
    assert not redis_client.exists(f"{key_prefix}:deadlines:table:t")  # nothing left behind


def test_seat_give_ups_back_off_per_bot_and_a_seated_bot_is_forgotten(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    give_ups = RedisSeatGiveUps(redis_client, prefix=f"{key_prefix}:give-ups")
    stuck = BotSeatRequest("t1", 0, "random", 0.0)
    other = BotSeatRequest("t1", 1, "tight", 0.5)
    assert give_ups.due([stuck, other], now=0.0) == [stuck, other]
    give_ups.record(stuck, now=100.0)
    give_ups.record(stuck, now=101.0)  # a try sent before the first give-up: not counted
    assert give_ups.due([stuck, other], now=100.0 + backoff(1)) == [stuck, other]
    give_ups.record(stuck, now=150.0)  # the second give-up: twice the wait, from the last
    assert give_ups.due([stuck, other], now=150.0 + backoff(2) - 0.1) == [other]
    assert give_ups.due([stuck, other], now=150.0 + backoff(2)) == [stuck, other]
    assert 0 < redis_client.ttl(f"{key_prefix}:give-ups:t1/0") <= RECORD_TTL_S
    give_ups.clear(stuck)
    assert give_ups.due([stuck], now=151.0) == [stuck]
    assert give_ups.due([], now=0.0) == []
