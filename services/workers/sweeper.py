"""The sweeper: fire every overdue deadline whose Celery trigger was lost.

Celery's Redis transport can lose an ETA task when a worker is killed hard and only
redelivers unacked ones after the visibility timeout (celery#3541, kombu#337). The sweeper runs
every `sweep_interval` seconds (Celery beat), so once any worker is up again, an overdue
timeout fires at most `sweep_interval + sweep_grace` seconds late. The grace keeps the sweeper
from racing the normal trigger; a race would still be harmless, because the table applies a
timeout only while its decision is open.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.shared.errors import DomainError
from services.workers.ports import DeadlineIndex, PendingDecisions, TableGateway, TimeoutOutcome


@dataclass(slots=True)
class SweepReport:
    """What one sweep did, for logs and tests."""

    applied: int = 0
    stale: int = 0
    not_due: int = 0
    failed: int = 0
    rebuilt: int = 0
    errors: list[str] = field(default_factory=list)


def rebuild(index: DeadlineIndex, pending: PendingDecisions) -> int:
    """Re-add every open deadline from the event store that the index has lost; returns how many."""
    added = 0
    for deadline in pending.open_deadlines():
        if not index.contains(deadline):
            index.add(deadline)
            added += 1
    return added


def sweep(
    index: DeadlineIndex,
    gateway: TableGateway,
    *,
    now: float,
    grace: float,
    limit: int = 500,
    pending: PendingDecisions | None = None,
) -> SweepReport:
    """Fire the overdue head of the index; resolved deadlines leave it, failed ones stay."""
    report = SweepReport()
    if pending is not None:
        try:
            report.rebuilt = rebuild(index, pending)
        except DomainError as exc:
            report.errors.append(f"rebuild: {exc.message}")
    for deadline in index.due(now - grace, limit):
        try:
            outcome = gateway.apply_timeout(deadline)
        except DomainError as exc:
            # The table service is down or refusing: keep the deadline for the next sweep.
            report.failed += 1
            report.errors.append(f"{deadline.key}: {exc.message}")
            continue
        if outcome is TimeoutOutcome.APPLIED:
            report.applied += 1
            index.resolve(deadline)
        elif outcome is TimeoutOutcome.STALE:
            report.stale += 1
            index.resolve(deadline)
        else:
            report.not_due += 1
    return report
