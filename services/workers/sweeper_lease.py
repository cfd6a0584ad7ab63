"""The sweeper's beat as a singleton: every worker process embeds a Celery beat (so losing a
node never loses the sweeper), but only the one holding the sweeper lease sends the sweeps.

The lease is a Redis key (`SET NX PX`, holder id as value) with a short time to live,
`WorkerSettings.sweeper_lease` = max(3 x the sweep interval, 2 s), renewed at every beat
tick (at most one sweep interval apart) and released on a clean shutdown. A holder killed
hard stops renewing; its lease runs out and the next beat to tick takes it. So a timeout whose
task died with a worker is fired at most lease + interval + grace after it was due, once any
worker runs (`WorkerSettings.sweeper_bound` counts the lease). Sweeps stay idempotent: two
beats sending at once (a holder paused past its lease) cost a duplicate sweep, never a
duplicate action.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import uuid
from typing import Any

import redis
from celery.beat import PersistentScheduler

from services.shared.redis_connection import RedisTarget, SyncClient, sync_client
from services.workers.settings import SWEEPER_LEASE_KEY

log = logging.getLogger(__name__)

# Take the lease if free, or extend it if ours; 1 when held after the call.
_HOLD = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class SweeperLease:
    """One process's claim on the sweeper (one Redis key)."""

    def __init__(
        self,
        client: SyncClient,
        lease_s: float,
        *,
        key: str = SWEEPER_LEASE_KEY,
        holder: str = "",
    ) -> None:
        self._key = key
        self._lease_ms = int(lease_s * 1000)
        self.holder = holder or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._hold = client.register_script(_HOLD)
        self._release = client.register_script(_RELEASE)

    def hold(self) -> bool:
        """Take or renew the lease; whether this process holds it now."""
        return bool(self._hold(keys=[self._key], args=[self.holder, self._lease_ms]))

    def release(self) -> None:
        self._release(keys=[self._key], args=[self.holder])


def _exit(*_: object) -> None:
    raise SystemExit(0)  # (beat's service loop then closes the scheduler)


class LeasedScheduler(PersistentScheduler):
    """Celery beat that sends its entries only while its process holds the sweeper lease."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from services.workers.celery_app import settings_of  # (the app configures it)

        settings = settings_of(self.app)
        client = sync_client(RedisTarget(url=settings.redis_url, source="workers"))
        self._lease = SweeperLease(client, settings.sweeper_lease, key=settings.sweeper_lease_key)
        self._interval = settings.sweep_interval
        self._held = False
        if multiprocessing.parent_process() is not None:
            # The beat a worker embeds is a child process the worker stops with SIGTERM,
            # which would kill it without `close`: exit instead, so the lease is handed over
            # at once. (A standalone `celery beat` handles its own signals.)
            signal.signal(signal.SIGTERM, _exit)

    @property
    def holder(self) -> str:
        return self._lease.holder

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            held = self._lease.hold()
        except redis.RedisError as exc:  # Redis down: nobody can sweep; try again later
            log.warning("sweeper lease: Redis unreachable (%r)", exc)
            held = False
        if held != self._held:
            log.info("sweeper lease %s by %s", "taken" if held else "lost", self._lease.holder)
            self._held = held
        if not held:
            return self._interval
        return min(float(super().tick(*args, **kwargs)), self._interval)

    def close(self) -> None:
        if self._held:
            with contextlib.suppress(redis.RedisError):  # (else it runs out by itself)
                self._lease.release()
        super().close()
