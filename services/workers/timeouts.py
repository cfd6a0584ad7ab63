"""Firing one timeout trigger: never early, at most one change, and a no-op once moved on."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass

from services.scheduling.deadline_index import DeadlineIndex
from services.scheduling.deadlines import Deadline
from services.workers.ports import TableGateway, TimeoutOutcome

# A trigger that arrives this close to its deadline waits in place instead of re-queueing.
MAX_IN_PLACE_WAIT = 0.5
# When the table says "not due" although our clock says it is, ask again after this long.
NOT_DUE_RETRY = 0.05


class FireStep(enum.Enum):
    APPLIED = "applied"
    STALE = "stale"
    CANCELLED = "cancelled"  # the table resolved the decision and took it out of the index
    REARM = "rearm"  # too early: a hop of a long countdown, or a time bank moved the deadline


@dataclass(frozen=True, slots=True)
class FireResult:
    step: FireStep
    # For REARM: the deadline the next trigger is for.
    next: Deadline | None = None


def fire(
    deadline: Deadline,
    *,
    index: DeadlineIndex,
    gateway: TableGateway,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> FireResult:
    """Handle one delivery of `deadline`'s trigger (the first, a duplicate or a late replay).

    The index says whether the decision is still open as far as the scheduler knows and when
    it is due now (a time-bank extension moves it later); the table has the final word.
    """
    current = index.due_at_of(deadline)
    if current is None:
        return FireResult(FireStep.CANCELLED)
    target = Deadline(deadline.table_id, deadline.hand_number, deadline.action_number, current)
    wait = current - clock()
    if wait > MAX_IN_PLACE_WAIT:
        return FireResult(FireStep.REARM, target)
    if wait > 0:
        # Celery's timer may release an ETA task a few milliseconds early; never act early.
        sleep(wait)
    outcome = gateway.apply_timeout(target)
    if outcome is TimeoutOutcome.NOT_DUE:
        later = max(current, clock() + NOT_DUE_RETRY)
        retry = Deadline(target.table_id, target.hand_number, target.action_number, later)
        return FireResult(FireStep.REARM, retry)
    index.resolve(target)  # unless a time bank moved it meanwhile
    return FireResult(FireStep.APPLIED if outcome is TimeoutOutcome.APPLIED else FireStep.STALE)
