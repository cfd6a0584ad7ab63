"""The workers' Celery application: Redis broker, late acks, one task prefetched at a time.

Celery is only ever a trigger here. Every task re-checks the table (through the table service)
before it changes anything, so the settings below aim at "fires on time, at least once" and the
table turns "at least once" into "exactly once".
"""

from __future__ import annotations

import logging

from celery import Celery

from services.scheduling.tasks import SWEEP, configure_broker
from services.workers.settings import WorkerSettings

SWEEP_ENTRY = "sweep-overdue-deadlines"  # the beat schedule's entry for SWEEP
app = Celery("croupier", set_as_current=False)


def configure(celery: Celery, settings: WorkerSettings) -> Celery:
    """Point `celery` at the broker in `settings` with the delivery guarantees the tasks rely on."""
    configure_broker(celery, settings.redis_url, settings.visibility_timeout)
    celery.conf.update(
        # Ack after the task ran, and give the task back when its worker dies mid-run.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # A task running when the broker connection drops finishes (every task is idempotent
        # and re-checks the table); said explicitly, as Celery warns it will change default.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        beat_schedule={
            SWEEP_ENTRY: {
                "task": SWEEP,
                "schedule": settings.sweep_interval,
                # A sweep that waited longer than this is pointless: a newer one is queued.
                "options": {"expires": max(settings.sweep_interval * 2, 1.0)},
            }
        },
        croupier_settings=settings,
    )
    return celery


def settings_of(celery: Celery) -> WorkerSettings:
    """The settings `configure` attached, read from the environment when nobody configured."""
    found = celery.conf.get("croupier_settings")
    if isinstance(found, WorkerSettings):
        return found
    settings = WorkerSettings.from_env()
    configure(celery, settings)
    return settings


# Celery's own loggers that write one INFO line per task sent by beat, received and done.
_PER_TASK_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")


class _QuietSweeps(logging.Filter):
    """Drops the INFO lines of the sweep task (three a second with the default interval);
    its warnings and errors, and every other task's lines, pass. While the broker is down,
    beat cannot send the sweep: it says so every interval, in one line instead of a
    traceback each time."""

    def filter(self, record: logging.LogRecord) -> bool:
        if SWEEP not in record.getMessage() and SWEEP_ENTRY not in record.getMessage():
            return True
        if record.levelno <= logging.INFO:
            return False
        record.exc_info = record.exc_text = None
        return True


def quiet_sweep_logs() -> None:
    """Stop Celery logging every sweep (the sweeper logs what it did when it did anything)."""
    for name in _PER_TASK_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _QuietSweeps) for f in logger.filters):
            logger.addFilter(_QuietSweeps())
