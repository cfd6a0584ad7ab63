"""The Celery tasks: thin shells over `timeouts.fire`, `bot_turns.play_once` and `sweeper.sweep`.

Each worker process builds its adapters once (`runtime()`), from the settings `configure`
attached to the app (or the environment).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from services.scheduling.bot_turn import BotTurn
from services.scheduling.tasks import BOT_MOVE, FIRE_TIMEOUT, SEAT_BOT, SWEEP
from services.shared.errors import DomainError, Unavailable
from services.workers.bot_turns import BotMoveOutcome, play_once
from services.workers.celery_app import app, settings_of

__all__ = [
    "BOT_MOVE",
    "FIRE_TIMEOUT",
    "SEAT_BOT",
    "SWEEP",
    "bot_move",
    "fire_timeout",
    "seat_bot",
    "sweep",
]
from services.scheduling.deadlines import Deadline
from services.scheduling.scheduler import send_seat_bot, send_timeout
from services.workers.bot_seats import SeatOutcome
from services.workers.ports import BotSeatRequest
from services.workers.sweeper import sweep as sweep_index
from services.workers.timeouts import FireStep, fire
from services.workers.wiring import WorkerRuntime, build_runtime

log = logging.getLogger(__name__)

_runtime: WorkerRuntime | None = None
_runtime_lock = threading.Lock()
_last_rebuild = 0.0


def runtime() -> WorkerRuntime:
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = build_runtime(settings_of(app))
        return _runtime


@app.task(name=FIRE_TIMEOUT, bind=True, max_retries=20)
def fire_timeout(self: Any, encoded: str) -> str:
    rt = runtime()
    deadline = Deadline.decode(encoded)
    try:
        result = fire(deadline, index=rt.index, gateway=rt.gateway)
    except Unavailable as exc:
        # The table service is down: retry soon; the sweeper also keeps the deadline.
        raise self.retry(exc=exc, countdown=0.2) from exc
    if result.step is FireStep.REARM and result.next is not None:
        send_timeout(app, result.next, now=time.time(), max_countdown=rt.settings.max_countdown)
    log.info("timeout %s: %s", deadline.key, result.step.value)
    return result.step.value


@app.task(name=BOT_MOVE, bind=True, max_retries=5)
def bot_move(self: Any, encoded: str) -> str:
    rt = runtime()
    turn = BotTurn.decode(encoded)
    try:
        outcome = play_once(turn, claims=rt.claims, player=rt.bot_player)
    except Unavailable as exc:
        raise self.retry(exc=exc, countdown=0.2) from exc
    if outcome is not BotMoveOutcome.ACTED:
        log.info("bot turn %s: %s", turn.key, outcome.value)
    return outcome.value


@app.task(name=SEAT_BOT, bind=True, max_retries=20)
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
            raise self.retry(exc=exc, countdown=0.5) from exc
        outcome = _give_up(rt, request, exc)
    if outcome in (SeatOutcome.REFUSED, SeatOutcome.GAVE_UP) and rt.seat_give_ups is not None:
        rt.seat_give_ups.record(request, time.time())  # the sweeper backs off re-sending it
    elif outcome in (SeatOutcome.SEATED, SeatOutcome.ALREADY) and rt.seat_give_ups is not None:
        rt.seat_give_ups.clear(request)
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


@app.task(name=SWEEP)
def sweep() -> dict[str, int]:
    global _last_rebuild
    rt = runtime()
    now = time.time()
    rebuild_now = rt.pending is not None and now - _last_rebuild >= rt.settings.rebuild_interval
    if rebuild_now:
        _last_rebuild = now
    report = sweep_index(
        rt.index,
        rt.gateway,
        now=now,
        grace=rt.settings.sweep_grace,
        pending=rt.pending if rebuild_now else None,
        bots=rt.bot_seats if rebuild_now else None,
        seat_bot=resend_seat_bot,
        give_ups=rt.seat_give_ups,
    )
    if report.applied or report.failed or report.rebuilt or report.bots_reseated:
        log.warning(
            "sweeper: applied %d, stale %d, failed %d, rebuilt %d, bots reseated %d %s",
            report.applied,
            report.stale,
            report.failed,
            report.rebuilt,
            report.bots_reseated,
            report.errors[:3],
        )
    return {
        "applied": report.applied,
        "stale": report.stale,
        "not_due": report.not_due,
        "failed": report.failed,
        "rebuilt": report.rebuilt,
        "bots_reseated": report.bots_reseated,
    }


def resend_seat_bot(request: BotSeatRequest) -> None:
    """Queue `seat_bot` again for a requested bot whose first trigger was lost."""
    send_seat_bot(app, request.table_id, request.index, request.policy, request.difficulty)
