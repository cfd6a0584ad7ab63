"""What the sending side of the triggers needs to know, read from the same variables the
workers read (services/workers/settings.py takes its defaults from here):

- `CROUPIER_WORKERS_REDIS_URL`, else `REDIS_URL`: the broker and the deadline index
  (required; one Redis, never a cluster: see services/shared/redis_connection.py).
- `CROUPIER_WORKERS_VISIBILITY_TIMEOUT`: seconds before Redis redelivers an unacked task (3600).
- `CROUPIER_WORKERS_MAX_COUNTDOWN`: longest single ETA hop in seconds, at most a quarter of
  the visibility timeout (300).
- `CROUPIER_WORKERS_BOT_DELAY`: bots' thinking time before acting, seconds (0.5).
- `CROUPIER_WORKERS_BOT_RESEND`: seconds past its thinking time after which a bot turn that
  was not played is sent again by the sweeper (10).
- `CROUPIER_WORKERS_SEAT_RESEND`: seconds after which a requested bot's seating that did not
  seat it is sent again by the sweeper (30; a bot that gave up waits its backoff instead).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.shared.redis_connection import WORKERS_SINGLE_REDIS, single_url

VISIBILITY_TIMEOUT_S = 3600.0
MAX_COUNTDOWN_S = 300.0
BOT_DELAY_S = 0.5
BOT_RESEND_S = 10.0
SEAT_RESEND_S = 30.0


def seconds(source: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds from the environment (ValueError naming the variable)."""
    raw = source.get(name, "")
    try:
        return float(raw) if raw else default
    except ValueError as exc:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from exc


def check_countdown(max_countdown: float, visibility_timeout: float) -> None:
    """Celery's Redis transport hands an unacked task to another worker once the visibility
    timeout passes; an ETA hop anywhere near it would run twice (celery#2481, kombu#337)."""
    if max_countdown * 4 > visibility_timeout:
        raise ValueError(
            f"CROUPIER_WORKERS_MAX_COUNTDOWN ({max_countdown}s) must be at most a quarter"
            f" of CROUPIER_WORKERS_VISIBILITY_TIMEOUT ({visibility_timeout}s)"
        )


def check_resends(bot_resend: float, seat_resend: float) -> None:
    if bot_resend <= 0 or seat_resend <= 0:
        raise ValueError(
            "CROUPIER_WORKERS_BOT_RESEND and CROUPIER_WORKERS_SEAT_RESEND must be positive"
        )


@dataclass(frozen=True, slots=True)
class SchedulingSettings:
    redis_url: str
    visibility_timeout: float = VISIBILITY_TIMEOUT_S
    max_countdown: float = MAX_COUNTDOWN_S
    bot_delay: float = BOT_DELAY_S
    bot_resend: float = BOT_RESEND_S
    seat_resend: float = SEAT_RESEND_S

    def __post_init__(self) -> None:
        if not self.redis_url:
            raise ValueError(WORKERS_SINGLE_REDIS)
        check_countdown(self.max_countdown, self.visibility_timeout)
        check_resends(self.bot_resend, self.seat_resend)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SchedulingSettings:
        source = os.environ if env is None else env
        return cls(
            redis_url=single_url("workers", source),
            visibility_timeout=seconds(
                source, "CROUPIER_WORKERS_VISIBILITY_TIMEOUT", VISIBILITY_TIMEOUT_S
            ),
            max_countdown=seconds(source, "CROUPIER_WORKERS_MAX_COUNTDOWN", MAX_COUNTDOWN_S),
            bot_delay=seconds(source, "CROUPIER_WORKERS_BOT_DELAY", BOT_DELAY_S),
            bot_resend=seconds(source, "CROUPIER_WORKERS_BOT_RESEND", BOT_RESEND_S),
            seat_resend=seconds(source, "CROUPIER_WORKERS_SEAT_RESEND", SEAT_RESEND_S),
        )
