"""The sweeper: send again every trigger that is overdue in its index because its task was lost.

Celery's Redis transport can lose an ETA task when a worker is killed hard and only
redelivers unacked ones after the visibility timeout (celery#3541, kombu#337). So every
trigger is written into an index before it is sent (the deadline index; the bot-turn and
seat-bot resend indexes), and the sweeper runs every `sweep_interval` seconds (Celery beat):
an overdue timeout is fired at most `sweep_interval + sweep_grace` seconds late, an unplayed
bot turn or an unseated requested bot is sent again once its resend period is over. It reads
only the heads of the indexes, never a table: a table that waits for nobody has no entry and
costs nothing. The grace keeps the sweeper from racing the normal trigger; a race would still
be harmless, because the table applies a timeout only while its decision is open and a bot's
Act and seating are idempotent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadline_index import DeadlineIndex
from services.scheduling.resend_index import ResendIndex
from services.shared.errors import DomainError
from services.workers.ports import (
    BotSeatRequest,
    OpenWork,
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
    rebuilt: int = 0  # triggers the indexes had lost, added back from a scan of the tables
    bot_turns_resent: int = 0
    bots_reseated: int = 0  # seating triggers sent again for requested bots never seated
    scanned: bool = False  # the tables were scanned (a rebuild was asked for and worked)
    errors: list[str] = field(default_factory=list)

    @property
    def eventful(self) -> bool:
        """Whether the sweep did anything worth a log line (most sweeps find nothing)."""
        return any(
            (self.applied, self.failed, self.rebuilt, self.bot_turns_resent, self.bots_reseated)
        )


@dataclass(frozen=True, slots=True)
class Resends:
    """The resend indexes, how to send their triggers again, and how long to wait each time."""

    bot_turns: ResendIndex
    send_bot_turn: Callable[[BotTurn], None]
    bot_resend: float
    seat_bots: ResendIndex | None = None  # None: no ledger, so no bots are seated
    send_seat_bot: Callable[[BotSeatRequest], None] | None = None
    seat_resend: float = 30.0
    give_ups: SeatGiveUps | None = None


def rebuild(
    work: OpenWork,
    index: DeadlineIndex,
    resends: Resends | None,
    now: float,
    swept: DeadlineIndex | None = None,
) -> int:
    """Add back every trigger of `work` its index lacks (due now: this sweep sends them; a
    real-time game's deadlines go to the `swept` index, whose own loop fires them)."""
    added = 0
    for deadlines, into in ((work.deadlines, index), (work.swept_deadlines, swept or index)):
        for deadline in deadlines:
            if not into.contains(deadline):
                into.add(deadline)
                added += 1
    if resends is None:
        return added
    for turn in work.bot_turns:
        if not resends.bot_turns.contains(turn.encode()):
            resends.bot_turns.arm(turn.table_id, turn.encode(), now)
            added += 1
    if resends.seat_bots is not None:
        for request in work.unseated_bots:
            if not resends.seat_bots.contains(request.encode()):
                resends.seat_bots.add(request.encode(), now)
                added += 1
    return added


def resend(resends: Resends, now: float, limit: int, report: SweepReport) -> None:
    """Send the overdue bot turns and seatings again, each moved a resend period on (so it
    is sent once per period until its task resolves it). A bot that gave up lately waits
    for its backoff (`seat_give_ups`)."""
    for member, _ in resends.bot_turns.due(now, limit):
        resends.send_bot_turn(BotTurn.decode(member))
        resends.bot_turns.postpone(member, now + resends.bot_resend)
        report.bot_turns_resent += 1
    if resends.seat_bots is None or resends.send_seat_bot is None:
        return
    for member, _ in resends.seat_bots.due(now, limit):
        request = BotSeatRequest.decode(member)
        resends.seat_bots.postpone(member, now + resends.seat_resend)
        if resends.give_ups is not None and not resends.give_ups.due([request], now):
            continue  # backing off after a give-up: looked at again a period later
        resends.send_seat_bot(request)
        report.bots_reseated += 1


def sweep(
    index: DeadlineIndex,
    gateway: TableGateway,
    *,
    now: float,
    grace: float,
    limit: int = 500,
    resends: Resends | None = None,
    scan: Callable[[], OpenWork] | None = None,
    swept: DeadlineIndex | None = None,
) -> SweepReport:
    """Fire the overdue head of the deadline index (resolved deadlines leave it, failed ones
    stay) and send the overdue resends again. With `scan` (a worker's first sweep, or every
    rebuild interval) it first adds back whatever triggers the indexes lost (`swept`: where
    the real-time games' deadlines go)."""
    report = SweepReport()
    if scan is not None:
        try:
            report.rebuilt = rebuild(scan(), index, resends, now, swept)
            report.scanned = True
        except DomainError as exc:
            report.errors.append(f"rebuild: {exc.message}")
    if resends is not None:
        resend(resends, now, limit, report)
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
