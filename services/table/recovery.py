"""The recovery sweep: every table-service instance finishes tables another one left behind.

A table is in the attention set (attention.py) while some instance writes it. A mark older
than `grace_s` means nobody has written the table since: if it still has process steps to
take (cards to deal, chips to pay) or a decision whose timeout or bot turn may have been
lost with a failed instance or broker, nobody else will take them. Every `interval_s` the
sweep takes such marks (a claim moves a mark out of reach of the other instances' sweeps
for a grace period), calls `TableApplication.recover` for each, and removes the marks of
tables that then wait for players only; a table that still fails stays marked and is tried
again a grace later (its hand is voided once a step has failed for `void_after_s`).

Only marked tables are read: a table nobody has written for a while is not in the set, so
idle tables cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from services.shared import errors
from services.table.application import TableApplication

log = structlog.get_logger(__name__)

# Tables one sweep takes at most (the rest wait for the next sweep, a second later).
SWEEP_BATCH = 200


@dataclass(slots=True)
class SweepReport:
    recovered: int = 0  # waiting for players only now (unmarked)
    failed: int = 0  # still stuck (kept marked, tried again a grace later)
    errors: list[str] = field(default_factory=list)


class RecoverySweep:
    def __init__(
        self, app: TableApplication, *, interval_s: float = 1.0, batch: int = SWEEP_BATCH
    ) -> None:
        self.app = app
        self.interval_s = interval_s
        self.batch = batch

    def run_once(self) -> SweepReport:
        """One sweep over the marks older than the grace (every one, not only this
        instance's: an instance that died cannot finish its own)."""
        report = SweepReport()
        attention = self.app.attention
        now = self.app.clock()
        for table_id, mark in attention.due(
            now - int(self.app.recovery_grace_s * 1000), self.batch
        ):
            if not attention.claim(table_id, mark, now):
                continue  # another instance took it, or someone marked it again
            try:
                done = self.app.recover(table_id)
            except errors.NotFound:
                done = True  # (a mark without a table: its creation failed)
            except Exception as exc:  # still stuck: the claim keeps it for the next try
                report.failed += 1
                report.errors.append(f"{table_id}: {repr(exc)[:200]}")
                continue
            if done:
                attention.clear(table_id, now)
                report.recovered += 1
        if report.failed:
            log.warning(
                "recovery sweep: tables still stuck", failed=report.failed, errors=report.errors[:3]
            )
        return report

    def run(self, stopped: Callable[[float], bool]) -> None:
        """Sweep every `interval_s` until `stopped(timeout)` (which waits up to `timeout`
        seconds for the server to stop) says so. A sweep that fails (Redis down) is logged
        and the next one tries again."""
        while not stopped(self.interval_s):
            try:
                self.run_once()
            except Exception as exc:
                log.warning("recovery sweep failed; retrying", error=repr(exc)[:200])
