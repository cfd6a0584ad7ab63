"""The workers' Celery application: Redis broker, late acks, one task prefetched at a time.

Celery is only ever a trigger here. Every task re-checks the table (through the table service)
before it changes anything, so the settings below aim at "fires on time, at least once" and the
table turns "at least once" into "exactly once".
"""

from __future__ import annotations

from celery import Celery

from services.scheduling.tasks import SWEEP, configure_broker
from services.workers.settings import WorkerSettings

app = Celery("croupier", set_as_current=False)


def configure(celery: Celery, settings: WorkerSettings) -> Celery:
    """Point `celery` at the broker in `settings` with the delivery guarantees the tasks rely on."""
    configure_broker(celery, settings.redis_url, settings.visibility_timeout)
    celery.conf.update(
        # Ack after the task ran, and give the task back when its worker dies mid-run.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        beat_schedule={
            "sweep-overdue-deadlines": {
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
