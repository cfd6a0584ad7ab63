"""The real-time games' deadlines, swept: no task per deadline, a look at an index instead.

A Spit table renames a seat's stall deadline with every card played, so a task per deadline
would be a Celery message per card per seat, almost all of them for decisions gone by the
time they ran. The table writes its open real-time deadlines into their own sorted set (the
swept index, `{croupier:workers:swept-deadlines}`, replaced per table in one atomic step, so a
closed or renamed decision leaves it at once: `CeleryScheduler.schedule_timeouts(swept=True)`)
and this loop, one thread in every worker process, reads the head of that set every
`CROUPIER_WORKERS_SWEPT_INTERVAL` (25 ms) and asks the table to time out each deadline that
is due by now (`sweeper.sweep` with no grace).

- **Never early**: only deadlines due by this process's clock are fired, and the table
  refuses a timeout its own clock says is not due (NOT_DUE: the entry stays for the next
  look).
- **Once**: the table applies a timeout only while its decision is open, under a key naming
  the deadline; a fired deadline leaves the index (`resolve`, only at the due time it was
  fired for). Two worker processes polling the same set are harmless.
- **Survives a kill -9**: the index is in Redis, written by the table as it takes the
  triggers of the append that opened the decision (a table killed before that is in its
  attention set, and its recovery writes them again); a killed worker's deadlines are
  fired by the next worker's first look, a killed table's by the first look after the
  table is back (its ApplyTimeout fails UNAVAILABLE meanwhile and the entry stays).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import redis

from services.scheduling.deadline_index import DeadlineIndex
from services.workers.ports import TableGateway
from services.workers.sweeper import SweepReport, sweep

log = logging.getLogger(__name__)
# After a look that could not reach the table (or Redis), wait longer, up to this.
MAX_BACKOFF_S = 1.0


def sweep_due(index: DeadlineIndex, gateway: TableGateway, now: float) -> SweepReport:
    """Fire every swept deadline due by `now` (one look)."""
    return sweep(index, gateway, now=now, grace=0.0)


class SweptDeadlines:
    """The loop, on a daemon thread of its own (`start`, `stop`)."""

    def __init__(
        self,
        index: DeadlineIndex,
        gateway: TableGateway,
        interval: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._index = index
        self._gateway = gateway
        self._interval = interval
        self._clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="swept-deadlines", daemon=True)
        self.fired = 0  # timeouts the table applied, for logs and tests

    def start(self) -> SweptDeadlines:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        wait = self._interval
        while not self._stop.wait(wait):
            try:
                report = sweep_due(self._index, self._gateway, self._clock())
            except redis.RedisError as exc:
                log.warning("swept deadlines: Redis unreachable (%r); looking again", exc)
                wait = min(MAX_BACKOFF_S, wait * 2)
                continue
            except Exception:  # never let the loop die: the next look tries again
                log.exception("swept deadlines: a look failed")
                wait = min(MAX_BACKOFF_S, wait * 2)
                continue
            self.fired += report.applied
            if report.failed:
                log.warning("swept deadlines: %d not fired %s", report.failed, report.errors[:3])
                wait = min(MAX_BACKOFF_S, wait * 2)
            else:
                wait = self._interval
