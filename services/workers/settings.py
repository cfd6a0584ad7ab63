"""Worker settings, read once from the environment.

- `CROUPIER_WORKERS_REDIS_URL`, else `REDIS_URL`: broker and deadline index (required; one
  Redis, never a cluster: Celery's Redis transport has no cluster client).
- `CROUPIER_TABLE_TARGET`: the table service `host:port` (required once a task calls it).
- `CROUPIER_AUTH_PUBLIC_KEYS_FILE` and `CROUPIER_AUTH_SIGNING_KEY_FILE`: the workers' own
  Ed25519 identity (issuer `workers`), which signs only the workers' service token and the
  tokens of the built-in bots they play; or, in development and tests only,
  `CROUPIER_AUTH_KEY`, the shared key (see services.shared.auth).
- `CROUPIER_WORKERS_VISIBILITY_TIMEOUT`: seconds before Redis redelivers an unacked task
  (3600).
- `CROUPIER_WORKERS_MAX_COUNTDOWN`: longest single ETA hop in seconds, at most a quarter of
  the visibility timeout (300).
- `CROUPIER_WORKERS_SWEEP_INTERVAL`: seconds between sweeps of the deadline index (1.0);
  the sweeper lease lasts max(3 x this, 2 s) (sweeper_lease.py).
- `CROUPIER_WORKERS_SWEEP_GRACE`: how overdue a deadline must be before the sweeper fires
  it, seconds (0.25).
- `CROUPIER_WORKERS_REBUILD_INTERVAL`: seconds between two rebuilds of the indexes from
  every table (a scan of the whole table service); 0, the default, rebuilds once, at a worker
  process's first sweep, and never again: the indexes are written before every trigger is
  sent, so the sweeper needs no scan to find lost ones.
- `CROUPIER_WORKERS_BOT_DELAY`: bots' thinking time before acting, seconds (0.5).
- `CROUPIER_WORKERS_BOT_RESEND`: seconds past its thinking time after which a bot turn that
  was not played is sent again (10).
- `CROUPIER_WORKERS_SEAT_RESEND`: seconds after which a requested bot's seating that did not
  seat it is sent again (30; a bot that gave up waits `seat_give_ups.backoff` instead).
- `CROUPIER_WORKERS_SWEPT_INTERVAL`: seconds between two looks at the head of the swept
  deadline index, the real-time games' deadlines (0.025).
- `CROUPIER_WORKERS_HOST_BOTS`: 1 (the default) runs the bot host in this worker process:
  the real-time bots (Spit) as long-lived players; 0 leaves them to other workers.
- `CROUPIER_WORKERS_BOT_BANKROLL`: chips the house's bot bankroll (`house:bots:<currency>`)
  is filled with once, from `external:world`: what all requested bots together may take from
  the house until an operator deposits more (1,000,000,000; 0 = deposit nothing).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from services.scheduling.settings import (
    BOT_DELAY_S,
    BOT_RESEND_S,
    MAX_COUNTDOWN_S,
    SEAT_RESEND_S,
    VISIBILITY_TIMEOUT_S,
    SchedulingSettings,
    check_countdown,
    check_resends,
    seconds,
)
from services.shared import auth
from services.shared.limits import MAX_CHIPS
from services.shared.redis_connection import WORKERS_SINGLE_REDIS, single_url
from services.shared.settings import AUTH_KEY_ENV, env_int, service_keys_from_env
from services.workers.bot_seats import DEFAULT_BOT_BANKROLL

ISSUER = "workers"
SWEEPER_LEASE_KEY = "croupier:workers:sweeper-lease"
MIN_SWEEPER_LEASE_S = 2.0


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    redis_url: str
    table_target: str = ""
    # Where bots seated by the table (CreateTable bots) get their buy-in deposited.
    ledger_target: str = ""
    auth_key: str = field(default="", repr=False)
    service_keys: auth.ServiceKeys | None = None
    visibility_timeout: float = VISIBILITY_TIMEOUT_S
    max_countdown: float = MAX_COUNTDOWN_S
    sweep_interval: float = 1.0
    sweep_grace: float = 0.25
    rebuild_interval: float = 0.0
    bot_delay: float = BOT_DELAY_S
    bot_resend: float = BOT_RESEND_S
    seat_resend: float = SEAT_RESEND_S
    bot_bankroll: int = DEFAULT_BOT_BANKROLL
    swept_interval: float = 0.025
    host_bots: bool = True
    # The Redis key of the sweeper lease (sweeper_lease.py): one per deployment.
    sweeper_lease_key: str = SWEEPER_LEASE_KEY

    def __post_init__(self) -> None:
        if not self.redis_url:
            raise ValueError(WORKERS_SINGLE_REDIS)
        check_countdown(self.max_countdown, self.visibility_timeout)
        if self.sweep_interval <= 0 or self.sweep_grace < 0:
            raise ValueError("the sweep interval must be positive and the grace not negative")
        if self.swept_interval <= 0:
            raise ValueError("CROUPIER_WORKERS_SWEPT_INTERVAL must be positive")
        if self.rebuild_interval < 0:
            raise ValueError("CROUPIER_WORKERS_REBUILD_INTERVAL must not be negative")
        check_resends(self.bot_resend, self.seat_resend)
        if not 0 <= self.bot_bankroll <= MAX_CHIPS:
            raise ValueError(f"CROUPIER_WORKERS_BOT_BANKROLL must be 0..{MAX_CHIPS} chips")

    @property
    def credentials(self) -> auth.Credentials | None:
        """The workers' signing identity, None when none is configured."""
        if self.service_keys is not None:
            return self.service_keys
        return auth.SharedKey(self.auth_key) if self.auth_key else None

    @property
    def scheduling(self) -> SchedulingSettings:
        """The part of these settings the sending side of the triggers uses."""
        return SchedulingSettings(
            self.redis_url,
            self.visibility_timeout,
            self.max_countdown,
            self.bot_delay,
            self.bot_resend,
            self.seat_resend,
        )

    @property
    def sweeper_lease(self) -> float:
        """How long the sweeper lease lasts unrenewed: long enough that a holder renewing
        every interval never loses it to a slow tick, short enough that a dead holder's
        sweeps resume soon."""
        return max(3.0 * self.sweep_interval, MIN_SWEEPER_LEASE_S)

    @property
    def sweeper_bound(self) -> float:
        """Worst-case lateness of a timeout whose Celery task was lost, once a worker runs:
        the sweeper's lease may have to run out first (its holder died with the task)."""
        return self.sweeper_lease + self.sweep_interval + self.sweep_grace

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorkerSettings:
        source = os.environ if env is None else env

        def number(name: str, default: float) -> float:
            return seconds(source, name, default)

        return cls(
            redis_url=single_url("workers", source),
            table_target=source.get("CROUPIER_TABLE_TARGET", ""),
            ledger_target=source.get("CROUPIER_LEDGER_TARGET", ""),
            auth_key=source.get(AUTH_KEY_ENV, ""),
            service_keys=service_keys_from_env(ISSUER, source),
            visibility_timeout=number("CROUPIER_WORKERS_VISIBILITY_TIMEOUT", VISIBILITY_TIMEOUT_S),
            max_countdown=number("CROUPIER_WORKERS_MAX_COUNTDOWN", MAX_COUNTDOWN_S),
            sweep_interval=number("CROUPIER_WORKERS_SWEEP_INTERVAL", 1.0),
            sweep_grace=number("CROUPIER_WORKERS_SWEEP_GRACE", 0.25),
            rebuild_interval=number("CROUPIER_WORKERS_REBUILD_INTERVAL", 0.0),
            bot_delay=number("CROUPIER_WORKERS_BOT_DELAY", BOT_DELAY_S),
            bot_resend=number("CROUPIER_WORKERS_BOT_RESEND", BOT_RESEND_S),
            seat_resend=number("CROUPIER_WORKERS_SEAT_RESEND", SEAT_RESEND_S),
            bot_bankroll=env_int("CROUPIER_WORKERS_BOT_BANKROLL", DEFAULT_BOT_BANKROLL, env=source),
            swept_interval=number("CROUPIER_WORKERS_SWEPT_INTERVAL", 0.025),
            host_bots=source.get("CROUPIER_WORKERS_HOST_BOTS", "1") != "0",
        )
