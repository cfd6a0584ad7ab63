"""The sweeper: fire every overdue deadline whose Celery trigger was lost.

Celery's Redis transport can lose an ETA task when a worker is killed hard and only
redelivers unacked ones after the visibility timeout (celery#3541, kombu#337). The sweeper runs
every `sweep_interval` seconds (Celery beat), so once any worker is up again, an overdue
timeout fires at most `sweep_interval + sweep_grace` seconds late. The grace keeps the sweeper
from racing the normal trigger; a race would still be harmless, because the table applies a
timeout only while its decision is open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from services.scheduling.deadline_index import DeadlineIndex
from services.shared.errors import DomainError
from services.workers.ports import (
    BotSeatRequest,
    PendingBotSeats,
    PendingDecisions,
    SeatGiveUps,
    TableGateway,
    TimeoutOutcome,
)


@dataclass(slots=True)
class SweepReport:
    """What one sweep did, for logs and tests."""

    applied: int = 0
    stale: int = 0
    not_due: int = 0
    failed: int = 0
    rebuilt: int = 0
    bots_reseated: int = 0  # seating triggers sent again for requested bots never seated
    errors: list[str] = field(default_factory=list)


def rebuild(index: DeadlineIndex, pending: PendingDecisions) -> int:
    """Re-add every open deadline from the event store that the index has lost; returns how many."""
    added = 0
    for deadline in pending.open_deadlines():
        if not index.contains(deadline):
            index.add(deadline)
            added += 1
    return added


def reseat(
    bots: PendingBotSeats,
    seat_bot: Callable[[BotSeatRequest], None],
    give_ups: SeatGiveUps | None = None,
    now: float = 0.0,
) -> int:
    """Send the seating trigger again for every requested bot that never sat down, unless it
    gave up lately (`give_ups`: the n-th give-up waits `seat_give_ups.backoff(n)`).

    The trigger sent at CreateTable can be lost like any Celery task. Sending it again is
    safe: a duplicate `seat_bot` finds the bot seated, or finds its seating round's chips
    issued (keys per round, `bot_chips`), so nothing happens twice.
    """
    requests = list(bots.unseated_bots())
    if give_ups is not None:
        requests = give_ups.due(requests, now)
    for request in requests:
        seat_bot(request)
    return len(requests)


def sweep(
    index: DeadlineIndex,
    gateway: TableGateway,
    *,
    now: float,
    grace: float,
    limit: int = 500,
    pending: PendingDecisions | None = None,
    bots: PendingBotSeats | None = None,
    seat_bot: Callable[[BotSeatRequest], None] | None = None,
    give_ups: SeatGiveUps | None = None,
) -> SweepReport:
    """Fire the overdue head of the index; resolved deadlines leave it, failed ones stay.

    With `pending` it first rebuilds lost deadlines; with `bots` and `seat_bot` it re-sends
    lost seating triggers, skipping bots that gave up lately (`give_ups`); both are the
    occasional, table-wide part of a sweep.
    """
    report = SweepReport()
    if pending is not None:
        try:
            report.rebuilt = rebuild(index, pending)
        except DomainError as exc:
            report.errors.append(f"rebuild: {exc.message}")
    if bots is not None and seat_bot is not None:
        try:
            report.bots_reseated = reseat(bots, seat_bot, give_ups, now)
        except DomainError as exc:
            report.errors.append(f"bot seats: {exc.message}")
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
