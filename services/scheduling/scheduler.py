"""`CeleryScheduler`: the table service's scheduler port, implemented with Celery and Redis.

The table service calls it after appending `ActionRequested` (schedule a timeout; for a bot
seat also schedule the bot's move) and after a decision is made (cancel the timeout). It only
ever *triggers*: the deadline itself lives in the table's events, and every task re-checks
with the table before anything changes.

Scheduling a timeout writes the deadline into the Redis index (so the sweeper can fire it
if the Celery task is lost) and sends an ETA task for it (or for the first hop of a long
countdown, see `deadlines.countdown_for`).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

import redis
from celery import Celery

from services.bots.identity import bot_identity
from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadline_index import DeadlineIndex, RedisDeadlineIndex
from services.scheduling.deadlines import Deadline, countdown_for
from services.scheduling.settings import SchedulingSettings
from services.scheduling.tasks import BOT_MOVE, FIRE_TIMEOUT, SEAT_BOT, configure_broker


def send_timeout(celery: Celery, deadline: Deadline, *, now: float, max_countdown: float) -> None:
    """Queue the next trigger for `deadline`: at its due time, or a hop towards it."""
    wait, final = countdown_for(deadline, now, max_countdown)
    eta = deadline.due_at if final else now + wait
    celery.send_task(
        FIRE_TIMEOUT,
        args=[deadline.encode()],
        eta=dt.datetime.fromtimestamp(eta, tz=dt.UTC),
    )


def send_seat_bot(
    celery: Celery, table_id: str, index: int, policy: str, difficulty: float
) -> None:
    """Queue `seat_bot` for the table's bot number `index` (its arguments in one place: the
    table's trigger and the sweeper's re-send must match the task's signature)."""
    celery.send_task(SEAT_BOT, args=[table_id, index, policy, difficulty])


class CeleryScheduler:
    def __init__(
        self,
        celery: Celery,
        index: DeadlineIndex,
        *,
        max_countdown: float,
        bot_delay: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._celery = celery
        self._index = index
        self._max_countdown = max_countdown
        self._bot_delay = max(0.0, bot_delay)
        self._clock = clock

    @classmethod
    def from_settings(cls, settings: SchedulingSettings) -> CeleryScheduler:
        """A scheduler with its own Celery client app on the settings' broker."""
        celery = configure_broker(
            Celery("croupier-scheduler", set_as_current=False),
            settings.redis_url,
            settings.visibility_timeout,
        )
        index = RedisDeadlineIndex(redis.Redis.from_url(settings.redis_url))
        return cls(
            celery, index, max_countdown=settings.max_countdown, bot_delay=settings.bot_delay
        )

    def schedule_timeout(
        self, table_id: str, hand: int, action_number: int, deadline_unix_ms: int
    ) -> None:
        """Time out decision `action_number` of hand `hand` at the deadline.

        Scheduling the same decision again with a later deadline (a time-bank extension)
        moves it; the earlier trigger then finds the new due time and waits for it.
        """
        deadline = Deadline.from_unix_ms(table_id, hand, action_number, deadline_unix_ms)
        self._index.arm(deadline)
        send_timeout(self._celery, deadline, now=self._clock(), max_countdown=self._max_countdown)

    def cancel_timeout(self, table_id: str, hand: int, action_number: int) -> None:
        """The decision was made: its trigger, when it comes, does nothing."""
        self._index.discard(Deadline(table_id, hand, action_number, 0.0))

    def schedule_bot_turn(
        self, table_id: str, hand: int, action_number: int, seat: int, player: str
    ) -> None:
        """Let the bot `player` in `seat` decide, after the configured thinking time.

        The bot's policy and difficulty come from its player id (`bot_identity`).
        """
        policy, difficulty = bot_identity(player)
        turn = BotTurn(table_id, hand, action_number, seat, player, policy, difficulty)
        self._celery.send_task(
            BOT_MOVE,
            args=[turn.encode()],
            countdown=self._bot_delay,
            # The same id for every send of one turn: Celery logs make duplicates obvious.
            task_id=f"bot:{turn.key}",
        )

    def schedule_seat_bot(self, table_id: str, index: int, policy: str, difficulty: float) -> None:
        """Seat the table's bot number `index` (a `seat_bot` task joins it via JoinTable)."""
        send_seat_bot(self._celery, table_id, index, policy, difficulty)
