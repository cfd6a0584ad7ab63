"""The workers' task names and the broker settings that both sides of the queue use.

Celery is only ever a trigger here: every task re-checks the table (through the table service)
before it changes anything, so delivery aims at "fires on time, at least once" and the table
turns "at least once" into "exactly once".
"""

from __future__ import annotations

from celery import Celery

FIRE_TIMEOUT = "croupier.workers.fire_timeout"
BOT_MOVE = "croupier.workers.bot_move"
SWEEP = "croupier.workers.sweep"
SEAT_BOT = "croupier.workers.seat_bot"
BOT_ENTROPY = "croupier.workers.bot_entropy"


def configure_broker(celery: Celery, redis_url: str, visibility_timeout: float) -> Celery:
    """Point `celery` at the Redis broker, as the table (sending) and the workers (taking) must
    agree: the same transport options, JSON payloads, UTC times."""
    celery.conf.update(
        broker_url=redis_url,
        broker_connection_retry_on_startup=True,
        # Reconnect to a broker that went away for as long as it takes (Celery's default gives
        # up after 100 tries), and notice a dead connection within seconds.
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        # An unacked task is handed to another worker after this long; every ETA hop is kept
        # far below it (SchedulingSettings checks max_countdown <= visibility_timeout / 4).
        broker_transport_options={
            "visibility_timeout": visibility_timeout,
            "health_check_interval": 10,
            "socket_keepalive": True,
        },
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        enable_utc=True,
        timezone="UTC",
    )
    return celery
