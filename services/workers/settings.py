"""Worker settings, read once from the environment.

- `REDIS_URL`: broker and deadline index (required).
- `CROUPIER_TABLE_TARGET`: the table service `host:port` (required once a task calls it).
- `CROUPIER_AUTH_KEY`: signs the service and bot tokens the workers present (likewise).
- `CROUPIER_WORKERS_VISIBILITY_TIMEOUT`: seconds before Redis redelivers an unacked task
  (3600).
- `CROUPIER_WORKERS_MAX_COUNTDOWN`: longest single ETA hop in seconds, at most a quarter of
  the visibility timeout (300).
- `CROUPIER_WORKERS_SWEEP_INTERVAL`: seconds between sweeps of the deadline index (1.0).
- `CROUPIER_WORKERS_SWEEP_GRACE`: how overdue a deadline must be before the sweeper fires
  it, seconds (0.25).
- `CROUPIER_WORKERS_REBUILD_INTERVAL`: seconds between rebuilds of the index from the
  tables' event streams (10).
- `CROUPIER_WORKERS_BOT_DELAY`: bots' thinking time before acting, seconds (0.5).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from services.scheduling.settings import (
    BOT_DELAY_S,
    MAX_COUNTDOWN_S,
    VISIBILITY_TIMEOUT_S,
    SchedulingSettings,
    check_countdown,
    seconds,
)


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    redis_url: str
    table_target: str = ""
    # Where bots seated by the table (CreateTable bots) get their buy-in deposited.
    ledger_target: str = ""
    auth_key: str = ""
    visibility_timeout: float = VISIBILITY_TIMEOUT_S
    max_countdown: float = MAX_COUNTDOWN_S
    sweep_interval: float = 1.0
    sweep_grace: float = 0.25
    rebuild_interval: float = 10.0
    bot_delay: float = BOT_DELAY_S

    def __post_init__(self) -> None:
        if not self.redis_url:
            raise ValueError("REDIS_URL is required: the Redis the Celery broker runs on")
        check_countdown(self.max_countdown, self.visibility_timeout)
        if self.sweep_interval <= 0 or self.sweep_grace < 0:
            raise ValueError("the sweep interval must be positive and the grace not negative")

    @property
    def scheduling(self) -> SchedulingSettings:
        """The part of these settings the sending side of the triggers uses."""
        return SchedulingSettings(
            self.redis_url, self.visibility_timeout, self.max_countdown, self.bot_delay
        )

    @property
    def sweeper_bound(self) -> float:
        """Worst-case lateness of a timeout whose Celery task was lost, once a worker runs."""
        return self.sweep_interval + self.sweep_grace

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorkerSettings:
        source = os.environ if env is None else env

        def number(name: str, default: float) -> float:
            return seconds(source, name, default)

        return cls(
            redis_url=source.get("REDIS_URL", ""),
            table_target=source.get("CROUPIER_TABLE_TARGET", ""),
            ledger_target=source.get("CROUPIER_LEDGER_TARGET", ""),
            auth_key=source.get("CROUPIER_AUTH_KEY", ""),
            visibility_timeout=number("CROUPIER_WORKERS_VISIBILITY_TIMEOUT", VISIBILITY_TIMEOUT_S),
            max_countdown=number("CROUPIER_WORKERS_MAX_COUNTDOWN", MAX_COUNTDOWN_S),
            sweep_interval=number("CROUPIER_WORKERS_SWEEP_INTERVAL", 1.0),
            sweep_grace=number("CROUPIER_WORKERS_SWEEP_GRACE", 0.25),
            rebuild_interval=number("CROUPIER_WORKERS_REBUILD_INTERVAL", 10.0),
            bot_delay=number("CROUPIER_WORKERS_BOT_DELAY", BOT_DELAY_S),
        )
