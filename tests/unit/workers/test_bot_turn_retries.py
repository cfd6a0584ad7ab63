"""A bot turn that fails is retried for longer than a restart of the table service or Redis,
and nothing about giving its claim back may hide why it failed."""

from __future__ import annotations

import pytest
import redis

from services.scheduling.bot_turn import BotTurn
from services.shared.errors import Unavailable
from services.workers.bot_turns import BotMoveOutcome, play_once
from services.workers.tasks import MAX_RETRIES, bot_move, fire_timeout, retry_countdown, seat_bot

TURN = BotTurn("t1", 1, 2, seat=0, bot_id="bot-tight-50-t1-s0", policy="tight")


class ClaimsWithRedisDown:
    """Claims taken while Redis was up; giving one back or marking it done fails (it died)."""

    def __init__(self) -> None:
        self.held: dict[str, str] = {}

    def claim(self, turn: BotTurn, owner: str) -> bool:
        return self.held.setdefault(turn.key, owner) == owner

    def finish(self, turn: BotTurn) -> None:
        raise redis.ConnectionError("Connection refused")

    def release(self, turn: BotTurn) -> None:
        raise redis.ConnectionError("Connection refused")


class TableDown:
    def play(self, turn: BotTurn) -> BotMoveOutcome:
        raise Unavailable("table service UNAVAILABLE: connection refused")


class TableUp:
    def play(self, turn: BotTurn) -> BotMoveOutcome:
        return BotMoveOutcome.ACTED


def test_a_claim_that_cannot_be_released_does_not_hide_the_unavailable_table() -> None:
    claims = ClaimsWithRedisDown()
    with pytest.raises(Unavailable):  # (was redis.ConnectionError: the task was not retried)
        play_once(TURN, claims=claims, player=TableDown(), owner="task-1")


def test_the_same_tasks_retry_gets_its_claim_back_and_another_delivery_does_not() -> None:
    claims = ClaimsWithRedisDown()
    with pytest.raises(Unavailable):
        play_once(TURN, claims=claims, player=TableDown(), owner="task-1")
    # The claim is still held (its release failed): a duplicate is refused...
    assert play_once(TURN, claims=claims, player=TableUp(), owner="task-2") is (
        BotMoveOutcome.DUPLICATE
    )
    # ...and the retry of task-1 plays (a done mark that cannot be written does not fail it).
    assert play_once(TURN, claims=claims, player=TableUp(), owner="task-1") is (
        BotMoveOutcome.ACTED
    )


def test_retries_back_off_to_five_seconds_and_outlast_a_thirty_second_restart() -> None:
    waits = [retry_countdown(n) for n in range(MAX_RETRIES)]
    assert waits[:6] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0]
    assert max(waits) == 5.0
    assert sum(waits) > 120.0  # (was 5 x 0.2 s = 1 s for a bot turn)
    for task in (bot_move, fire_timeout, seat_bot):
        assert task.max_retries == MAX_RETRIES
