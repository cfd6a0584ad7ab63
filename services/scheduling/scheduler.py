"""`CeleryScheduler`: the table service's scheduler port, implemented with Celery and Redis.

The table service calls it after appending `ActionRequested` (schedule a timeout; for a bot
seat also schedule the bot's move) and after a decision is made (cancel the timeout). It only
ever *triggers*: the deadline itself lives in the table's events, and every task re-checks
with the table before anything changes.

Scheduling a timeout writes the deadline into the Redis index (so the sweeper can fire it
if the Celery task is lost) and sends an ETA task for it (or for the first hop of a long
countdown, see `deadlines.countdown_for`). A real-time game's deadlines (`swept`) go into
an index of their own and get no task: the workers' deadline sweeper polls its head. Bot
turns and bot seatings are written into their resend indexes (`resend_index`) before their
tasks are sent, for the same reason.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence

from celery import Celery

from services.bots.identity import bot_identity
from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadline_index import SWEPT_KEY, DeadlineIndex, RedisDeadlineIndex
from services.scheduling.deadlines import Deadline, countdown_for
from services.scheduling.resend_index import (
    BOT_TURNS_KEY,
    SEAT_BOTS_KEY,
    RedisResendIndex,
    ResendIndex,
)
from services.scheduling.seat_request import BotSeatRequest
from services.scheduling.settings import SchedulingSettings
from services.scheduling.tasks import (
    BOT_ENTROPY,
    BOT_MOVE,
    FIRE_TIMEOUT,
    SEAT_BOT,
    configure_broker,
)
from services.shared.redis_connection import RedisTarget, sync_client


def send_timeout(celery: Celery, deadline: Deadline, *, now: float, max_countdown: float) -> None:
    """Queue the next trigger for `deadline`: at its due time, or a hop towards it."""
    wait, final = countdown_for(deadline, now, max_countdown)
    eta = deadline.due_at if final else now + wait
    celery.send_task(
        FIRE_TIMEOUT,
        args=[deadline.encode()],
        eta=dt.datetime.fromtimestamp(eta, tz=dt.UTC),
    )


def send_seat_bot(celery: Celery, request: BotSeatRequest) -> None:
    """Queue `seat_bot` for the table's bot number `index` (its arguments in one place: the
    table's trigger and the sweeper's re-send must match the task's signature)."""
    celery.send_task(
        SEAT_BOT, args=[request.table_id, request.index, request.policy, request.difficulty]
    )


def send_bot_turn(celery: Celery, turn: BotTurn, *, countdown: float, resend: int = 0) -> None:
    """Queue `bot_move` for `turn`; `resend` numbers the sweeper's re-sends (a task id of their
    own, so a re-send does not count as a retry of a delivery that may still be running)."""
    task_id = f"bot:{turn.key}" if not resend else f"bot:{turn.key}:resend-{resend}"
    celery.send_task(BOT_MOVE, args=[turn.encode()], countdown=countdown, task_id=task_id)


def send_bot_entropy(celery: Celery, table_id: str, bot: str) -> None:
    """Queue `bot_entropy` for the seated bot `bot` of the table."""
    celery.send_task(BOT_ENTROPY, args=[table_id, bot])


class CeleryScheduler:
    def __init__(
        self,
        celery: Celery,
        index: DeadlineIndex,
        *,
        max_countdown: float,
        bot_turns: ResendIndex,
        seat_bots: ResendIndex,
        bot_delay: float = 0.0,
        bot_resend: float = 10.0,
        seat_resend: float = 30.0,
        clock: Callable[[], float] = time.time,
        swept: DeadlineIndex | None = None,
    ) -> None:
        self._celery = celery
        self._index = index
        # Real-time games' deadlines; without one they go to `index` with their tasks.
        self._swept = swept
        self._bot_turns = bot_turns
        self._seat_bots = seat_bots
        self._max_countdown = max_countdown
        self._bot_delay = max(0.0, bot_delay)
        self._bot_resend = bot_resend
        self._seat_resend = seat_resend
        self._clock = clock
        # Where the swept index is (from_settings), so an asyncio runtime can write it from
        # its loop (`write_swept_through`, swept_writer.py); None: not known.
        self.swept_redis: RedisTarget | None = None
        self._swept_submit: Callable[[str, Sequence[Deadline]], bool] | None = None

    def write_swept_through(self, submit: Callable[[str, Sequence[Deadline]], bool]) -> None:
        """Hand every table's swept deadlines to `submit` (a `SweptWriter`'s: coalesced and
        written from the event loop) instead of writing them here, from the caller's thread;
        what it does not take (False: the writer stopped) is written here as before."""
        self._swept_submit = submit

    @classmethod
    def from_settings(cls, settings: SchedulingSettings) -> CeleryScheduler:
        """A scheduler with its own Celery client app on the settings' broker."""
        celery = configure_broker(
            Celery("croupier-scheduler", set_as_current=False),
            settings.redis_url,
            settings.visibility_timeout,
        )
        target = RedisTarget(url=settings.redis_url, source="CROUPIER_WORKERS_REDIS_URL")
        client = sync_client(target)
        scheduler = cls(
            celery,
            RedisDeadlineIndex(client),
            max_countdown=settings.max_countdown,
            bot_turns=RedisResendIndex(client, BOT_TURNS_KEY),
            seat_bots=RedisResendIndex(client, SEAT_BOTS_KEY),
            bot_delay=settings.bot_delay,
            bot_resend=settings.bot_resend,
            seat_resend=settings.seat_resend,
            swept=RedisDeadlineIndex(client, SWEPT_KEY),
        )
        scheduler.swept_redis = target
        return scheduler

    def schedule_timeout(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        deadline_unix_ms: int,
        *,
        only_if_lost: bool = False,
        swept: bool = False,
    ) -> None:
        """Time out decision `action_number` of hand `hand` at the deadline.

        Scheduling the same decision again with a later deadline (a time-bank extension)
        moves it; the earlier trigger then finds the new due time and waits for it. The
        table's other open decisions stay (`schedule_timeouts` replaces them all).
        `only_if_lost` (the table's recovery): nothing when the index holds this deadline
        already (its trigger, or the sweeper, fires it). `swept` (a real-time game): armed in
        the swept index, whose sweeper fires it; no task, as for `schedule_timeouts`.
        """
        deadline = Deadline.from_unix_ms(table_id, hand, action_number, deadline_unix_ms)
        index = self._swept if swept and self._swept is not None else self._index
        if only_if_lost and index.due_at_of(deadline) == deadline.due_at:
            return
        index.arm(deadline)
        if index is self._swept:
            return
        send_timeout(self._celery, deadline, now=self._clock(), max_countdown=self._max_countdown)

    def schedule_timeouts(
        self, table_id: str, timeouts: Sequence[tuple[int, int, int]], *, swept: bool = False
    ) -> None:
        """The table's open timed decisions are now exactly `timeouts` ((round, decision
        number, deadline in Unix ms) each): the index drops the table's others (made, closed
        or renamed by the game: their triggers, if they come, find nothing) and a trigger is
        sent for each decision new to the index or moved (a time bank); the unchanged ones'
        triggers are on their way already. `swept` (a real-time game): the swept index's
        one atomic replace and nothing sent (one Redis call per change of the decisions)."""
        deadlines = [Deadline.from_unix_ms(table_id, h, a, ms) for h, a, ms in timeouts]
        if swept and self._swept_submit is not None and self._swept_submit(table_id, deadlines):
            return
        if swept and self._swept is not None:
            self._swept.replace_table(table_id, deadlines)
            return
        now = self._clock()
        for deadline in self._index.replace_table(table_id, deadlines):
            send_timeout(self._celery, deadline, now=now, max_countdown=self._max_countdown)

    def cancel_timeout(self, table_id: str, hand: int, action_number: int) -> None:
        """The decision was made: its trigger, when it comes, does nothing."""
        self._index.discard(Deadline(table_id, hand, action_number, 0.0))

    def schedule_bot_turn(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        seat: int,
        player: str,
        *,
        only_if_lost: bool = False,
    ) -> None:
        """Let the bot `player` in `seat` decide, after the configured thinking time.

        The bot's policy and difficulty come from its player id (`bot_identity`). The turn is
        the table's only open one in the bot-turn index until the task plays it (the
        sweeper sends it again if it is not played `bot_resend` seconds after it was due).
        `only_if_lost`: nothing when the index holds the turn already.
        """
        policy, difficulty = bot_identity(player)
        turn = BotTurn(table_id, hand, action_number, seat, player, policy, difficulty)
        if only_if_lost and self._bot_turns.contains(turn.encode()):
            return
        due = self._clock() + self._bot_delay + self._bot_resend
        self._bot_turns.arm(table_id, turn.encode(), due)
        self._send_bot_turn(turn)

    def schedule_seat_bot(
        self,
        table_id: str,
        index: int,
        policy: str,
        difficulty: float,
        *,
        only_if_lost: bool = False,
    ) -> None:
        """Seat the table's bot number `index` (a `seat_bot` task joins it via JoinTable); it
        stays in the seat-bot index until the bot sits or finds the table full (the sweeper
        re-sends it). `only_if_lost`: nothing when the index holds it already."""
        request = BotSeatRequest(table_id, index, policy, float(difficulty))
        if only_if_lost and self._seat_bots.contains(request.encode()):
            return
        self._seat_bots.add(request.encode(), self._clock() + self._seat_resend)
        self._send_seat_bot(request)

    def schedule_bot_entropy(self, table_id: str, bots: Sequence[str]) -> None:
        """A `bot_entropy` task per seated bot, at once (before the bots' turns, which wait
        their thinking time): it answers every entropy round the bot's view shows. A task
        lost on the way leaves that bot's entropy out of the shuffle it was for (its turns
        answer what they still can), which the shuffle's record shows; nothing waits on it
        beyond the table's entropy windows."""
        for bot in bots:
            send_bot_entropy(self._celery, table_id, bot)

    # The sends themselves, apart (a test's scheduler loses them as a killed worker would).
    def _send_bot_turn(self, turn: BotTurn) -> None:
        send_bot_turn(self._celery, turn, countdown=self._bot_delay)

    def _send_seat_bot(self, request: BotSeatRequest) -> None:
        send_seat_bot(self._celery, request)
