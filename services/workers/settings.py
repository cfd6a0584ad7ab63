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


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    redis_url: str
    table_target: str = ""
    # Where bots seated by the table (CreateTable bots) get their buy-in deposited.
    ledger_target: str = ""
    auth_key: str = ""
    visibility_timeout: float = 3600.0
    max_countdown: float = 300.0
    sweep_interval: float = 1.0
    sweep_grace: float = 0.25
    rebuild_interval: float = 10.0
    bot_delay: float = 0.5

    def __post_init__(self) -> None:
        if not self.redis_url:
            raise ValueError("REDIS_URL is required: the Redis the Celery broker runs on")
        # Celery's Redis transport hands an unacked task to another worker once the visibility
        # timeout passes; an ETA hop anywhere near it would run twice (celery#2481, kombu#337).
        if self.max_countdown * 4 > self.visibility_timeout:
            raise ValueError(
                f"CROUPIER_WORKERS_MAX_COUNTDOWN ({self.max_countdown}s) must be at most a quarter"
                f" of CROUPIER_WORKERS_VISIBILITY_TIMEOUT ({self.visibility_timeout}s)"
            )
        if self.sweep_interval <= 0 or self.sweep_grace < 0:
            raise ValueError("the sweep interval must be positive and the grace not negative")

    @property
    def sweeper_bound(self) -> float:
        """Worst-case lateness of a timeout whose Celery task was lost, once a worker runs."""
        return self.sweep_interval + self.sweep_grace

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorkerSettings:
        source = os.environ if env is None else env

        def number(name: str, default: float) -> float:
            raw = source.get(name, "")
            try:
                return float(raw) if raw else default
            except ValueError as exc:
                raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from exc

        return cls(
            redis_url=source.get("REDIS_URL", ""),
            table_target=source.get("CROUPIER_TABLE_TARGET", ""),
            ledger_target=source.get("CROUPIER_LEDGER_TARGET", ""),
            auth_key=source.get("CROUPIER_AUTH_KEY", ""),
            visibility_timeout=number("CROUPIER_WORKERS_VISIBILITY_TIMEOUT", 3600.0),
            max_countdown=number("CROUPIER_WORKERS_MAX_COUNTDOWN", 300.0),
            sweep_interval=number("CROUPIER_WORKERS_SWEEP_INTERVAL", 1.0),
            sweep_grace=number("CROUPIER_WORKERS_SWEEP_GRACE", 0.25),
            rebuild_interval=number("CROUPIER_WORKERS_REBUILD_INTERVAL", 10.0),
            bot_delay=number("CROUPIER_WORKERS_BOT_DELAY", 0.5),
        )
