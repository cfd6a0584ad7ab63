"""The Celery tasks: thin shells over `timeouts.fire`, `bot_turns.play_once`, the bot seater and
`sweeper.sweep`.

Each worker process builds its adapters once (`runtime()`), from the settings `configure`
attached to the app (or the environment). A task whose table service or Redis is down is
retried with a backoff (`retry_countdown`) that outlasts a restart of either; whatever it was
for also stays in its index, so the sweeper sends it again should every retry fail.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from kombu.exceptions import OperationalError

from services.bots.hosted import is_hosted
from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadlines import Deadline
from services.scheduling.scheduler import send_bot_turn, send_seat_bot, send_timeout
from services.scheduling.tasks import BOT_ENTROPY, BOT_MOVE, FIRE_TIMEOUT, SEAT_BOT, SWEEP
from services.sdk import errors as sdk_errors
from services.shared.errors import DomainError, Unavailable
from services.workers.bot_seats import SeatOutcome
from services.workers.bot_turns import BotMoveOutcome, play_once
from services.workers.celery_app import app, settings_of
from services.workers.ports import BotSeatRequest
from services.workers.sweeper import Resends, SweepReport
from services.workers.sweeper import sweep as sweep_index
from services.workers.timeouts import FireStep, fire
from services.workers.wiring import WorkerRuntime, build_runtime

__all__ = [
    "BOT_ENTROPY",
    "BOT_MOVE",
    "FIRE_TIMEOUT",
    "SEAT_BOT",
    "SWEEP",
    "bot_entropy",
    "bot_move",
    "fire_timeout",
    "retry_countdown",
    "seat_bot",
    "sweep",
]

log = logging.getLogger(__name__)

# Failures a retry may cure: the table service (or the ledger) down, or the workers' Redis.
RETRYABLE = (Unavailable, redis.ConnectionError, redis.TimeoutError)
# Retries of one task: 0.2, 0.4, 0.8, 1.6, 3.2, then 5 s apart (RETRY_CAP_S), 131 s in all,
# beyond a restart of the table service or of Redis (5-30 s).
MAX_RETRIES = 30
RETRY_BASE_S = 0.2
RETRY_CAP_S = 5.0

_runtime: WorkerRuntime | None = None
_runtime_lock = threading.Lock()
_last_rebuild: float | None = None  # when this process last scanned every table (never yet)


def retry_countdown(retries: int, base: float = RETRY_BASE_S) -> float:
    """How long the `retries`-th retry of a task waits (doubling from `base`, at most 5 s)."""
    return min(RETRY_CAP_S, base * float(2 ** min(retries, 16)))


def runtime() -> WorkerRuntime:
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = build_runtime(settings_of(app))
        return _runtime


@app.task(name=FIRE_TIMEOUT, bind=True, max_retries=MAX_RETRIES)
def fire_timeout(self: Any, encoded: str) -> str:
    rt = runtime()
    deadline = Deadline.decode(encoded)
    try:
        result = fire(deadline, index=rt.index, gateway=rt.gateway)
    except RETRYABLE as exc:
        # The table service or Redis is down: retry; the sweeper also keeps the deadline.
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    if result.step is FireStep.REARM and result.next is not None:
        send_timeout(app, result.next, now=time.time(), max_countdown=rt.settings.max_countdown)
    log.info("timeout %s: %s", deadline.key, result.step.value)
    return result.step.value


@app.task(name=BOT_MOVE, bind=True, max_retries=MAX_RETRIES)
def bot_move(self: Any, encoded: str) -> str:
    rt = runtime()
    turn = BotTurn.decode(encoded)
    owner = self.request.id or encoded
    try:
        outcome = play_once(turn, claims=rt.claims, player=rt.bot_player, owner=owner)
    except RETRYABLE as exc:
        # While this delivery retries, the sweeper need not send the turn again.
        _quietly(lambda: rt.bot_turns.postpone(encoded, time.time() + rt.settings.bot_resend))
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    if outcome is not BotMoveOutcome.DUPLICATE:
        # Played, or no longer this bot's decision: nothing to send again. (A duplicate
        # leaves the entry to the delivery that has the turn.)
        _quietly(lambda: rt.bot_turns.resolve(encoded))
    if outcome is not BotMoveOutcome.ACTED:
        log.info("bot turn %s: %s", turn.key, outcome.value)
    return outcome.value


@app.task(name=BOT_ENTROPY, bind=True, max_retries=MAX_RETRIES)
def bot_entropy(self: Any, table_id: str, bot: str) -> int:
    """The bot answers the entropy rounds its view of the table shows (a commitment to each
    shuffle taking them, its entropy to each sealed one it committed to), turn or no turn."""
    rt = runtime()
    try:
        return rt.bot_player.answer_entropy(table_id, bot)
    except sdk_errors.Unavailable as exc:
        # The table service is down: retry (its entropy windows bound what waits for it).
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
    except sdk_errors.CroupierError as exc:
        # The table is gone or the bot left: nothing to answer for it any more.
        log.info("bot %s's entropy at %s: %s", bot, table_id, exc.message)
        return 0


@app.task(name=SEAT_BOT, bind=True, max_retries=MAX_RETRIES)
def seat_bot(self: Any, table_id: str, index: int, policy: str, difficulty: float) -> str:
    rt = runtime()
    if rt.bot_seater is None:
        log.warning("bot %s of table %s not seated: no CROUPIER_LEDGER_TARGET", index, table_id)
        return "no-ledger"
    request = BotSeatRequest(table_id, index, policy, float(difficulty))
    try:
        outcome = rt.bot_seater.seat(table_id, index, policy, float(difficulty))
    except DomainError as exc:
        # Down, or lost a race for a seat (its chips are back already): look again shortly.
        if self.request.retries < self.max_retries:
            _quietly(
                lambda: rt.seat_bots.postpone(
                    request.encode(), time.time() + rt.settings.seat_resend
                )
            )
            countdown = retry_countdown(self.request.retries, base=0.5)
            raise self.retry(exc=exc, countdown=countdown) from exc
        outcome = _give_up(rt, request, exc)
    if outcome in (SeatOutcome.SEATED, SeatOutcome.ALREADY) and is_hosted(policy):
        # A real-time bot plays as a hosted player from now on (recorded before the seating's
        # trigger is resolved: a worker killed in between leaves the trigger to be sent again).
        rt.hosted.add(request)
    if outcome in (SeatOutcome.SEATED, SeatOutcome.ALREADY, SeatOutcome.NO_SEAT):
        # Seated, or no seat to try for: a table whose seat frees is written, and its
        # recovery triggers its unseated requested bots again.
        rt.seat_bots.resolve(request.encode())
        rt.seat_give_ups.clear(request)
    elif outcome in (SeatOutcome.REFUSED, SeatOutcome.GAVE_UP):
        rt.seat_give_ups.record(request, time.time())  # the sweeper backs off re-sending it
    log.info("bot %s of table %s: %s", index, table_id, outcome.value)
    return outcome.value


def _give_up(rt: WorkerRuntime, request: BotSeatRequest, last: DomainError) -> SeatOutcome:
    """The tries ran out: return the open round's chips. If that fails too, they wait in
    the bot's account, where the next try finds them issued (no second issue)."""
    assert rt.bot_seater is not None
    try:
        return rt.bot_seater.give_up(
            request.table_id, request.index, request.policy, request.difficulty
        )
    except DomainError as exc:
        log.warning(
            "bot %s of table %s gave up (%s); its chips wait for the next try: %s",
            request.index,
            request.table_id,
            last.message,
            exc.message,
        )
        return SeatOutcome.GAVE_UP


def _quietly(call: Any) -> None:
    """An index update that may fail with Redis down: the entry is a hint, a retry follows."""
    try:
        call()
    except redis.RedisError as exc:
        log.warning("index not updated (%r); the sweeper may send the trigger again", exc)


@app.task(name=SWEEP)
def sweep() -> dict[str, int]:
    global _last_rebuild
    rt = runtime()
    now = time.time()
    interval = rt.settings.rebuild_interval
    rebuild_now = _last_rebuild is None or (interval > 0 and now - _last_rebuild >= interval)
    try:
        report = _sweep_once(rt, now, rebuild_now)
    except (redis.RedisError, OperationalError) as exc:  # the workers' Redis / broker is down
        log.warning("sweeper: Redis unreachable (%r); the next sweep tries again", exc)
        return {}
    if report.scanned:
        _last_rebuild = now
    if report.eventful:
        log.warning(
            "sweeper: applied %d, stale %d, failed %d, rebuilt %d, bot turns resent %d, "
            "bots reseated %d %s",
            report.applied,
            report.stale,
            report.failed,
            report.rebuilt,
            report.bot_turns_resent,
            report.bots_reseated,
            report.errors[:3],
        )
    return {
        "applied": report.applied,
        "stale": report.stale,
        "not_due": report.not_due,
        "failed": report.failed,
        "rebuilt": report.rebuilt,
        "bot_turns_resent": report.bot_turns_resent,
        "bots_reseated": report.bots_reseated,
    }


def _sweep_once(rt: WorkerRuntime, now: float, rebuild_now: bool) -> SweepReport:
    return sweep_index(
        rt.index,
        rt.gateway,
        now=now,
        grace=rt.settings.sweep_grace,
        resends=Resends(
            bot_turns=rt.bot_turns,
            send_bot_turn=resend_bot_turn,
            bot_resend=rt.settings.bot_resend,
            seat_bots=rt.seat_bots if rt.bot_seater is not None else None,
            send_seat_bot=resend_seat_bot,
            seat_resend=rt.settings.seat_resend,
            give_ups=rt.seat_give_ups,
        ),
        scan=rt.scan.scan if rebuild_now else None,
        swept=rt.swept,
    )


def resend_bot_turn(turn: BotTurn) -> None:
    """Queue `bot_move` again for a bot turn whose task was lost (at once: it is overdue)."""
    send_bot_turn(app, turn, countdown=0.0, resend=int(time.time() * 1000))


def resend_seat_bot(request: BotSeatRequest) -> None:
    """Queue `seat_bot` again for a requested bot whose trigger was lost."""
    send_seat_bot(app, request)
