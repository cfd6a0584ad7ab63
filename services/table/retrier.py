"""Tables that could not finish their process (a dependency down) are finished in the
background: `keep_going` drives a table after a command and hands it to the retrier when a
step fails; the retrier `recover`s each such table every `retry_interval_s`, and a round
stuck for `void_after_s` since the table's last event is voided with every stake returned.
The recovery sweep (recovery.py) calls `recover` too, for tables another instance left.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import structlog

from services.games import contract as c
from services.shared import errors
from services.table import process
from services.table.commands import CommandPath
from services.table.decisions import Decisions
from services.table.entropy_window import EntropyWindowOpen
from services.table.folding import table_stream
from services.table.shell import Table
from services.table.steps import ProcessSteps
from services.table.tables import Tables

# The background retrier gives a stuck table up (until its next command) after this many
# void periods.
GIVE_UP_AFTER_VOIDS = 10
# A wake at a window's end comes this late, so the table's clock has passed it for sure.
WAKE_SLACK_S = 0.01
log = structlog.get_logger(__name__)


class Retrier:
    def __init__(
        self,
        tables: Tables,
        clock: Callable[[], int],
        void_after_s: float,
        retry_interval_s: float,
        *,
        idle_shuffles_s: float = 0.0,
    ) -> None:
        self.tables = tables
        self.idle_shuffles_s = idle_shuffles_s
        self.clock = clock
        self.void_after_s = void_after_s
        self.retry_interval_s = retry_interval_s
        self._stalled: dict[str, float] = {}  # table id -> monotonic time of the first failure
        self._wakes: dict[str, int] = {}  # table id -> when its entropy window ends (table ms)
        self._thread: threading.Thread | None = None
        # Wired by the application (they need the retrier themselves).
        self.steps: ProcessSteps
        self.commands: CommandPath
        self.decisions: Decisions

    def keep_going(self, table_id: str, table: Table | None = None) -> Table | None:
        """Drive the process after a command; the table it leaves (None when a step failed).
        A dependency that is down does not fail the command (it is recorded already): the
        table is retried in the background, and a hand that stays stuck past `void_after_s`
        is voided with every stake returned."""
        try:
            return self.steps.drive(table_id, table)
        except errors.DomainError as exc:
            # (Anything else, a storage error say, reaches the caller, whose retry with the
            # same key finds the command done; the recovery sweep finishes the table.)
            self.after_failure(table_id, exc)
            return None

    def after_failure(self, table_id: str, exc: BaseException) -> None:
        """A table whose steps stopped on `exc`: driven again when its entropy window ends
        (nothing is wrong: its players' entropy may still come), retried otherwise."""
        if isinstance(exc, EntropyWindowOpen):
            self.wake_at(table_id, exc.due_ms)
        else:
            self.retry_later(table_id)

    def wake_at(self, table_id: str, due_ms: int) -> None:
        """Drive the table again at `due_ms` (table clock; a relayed answer may drive it
        sooner). One pending wake per table, the earliest; lost with the process, when the
        recovery sweep finishes the table instead."""
        with self.tables.guard:
            pending = self._wakes.get(table_id)
            if pending is not None and pending <= due_ms:
                return
            self._wakes[table_id] = due_ms
        delay_s = max(due_ms - self.clock(), 0) / 1000 + WAKE_SLACK_S

        def wake() -> None:
            with self.tables.guard:
                if self._wakes.get(table_id) != due_ms:
                    return  # an earlier wake replaced this one
                del self._wakes[table_id]
            try:
                self.keep_going(table_id)
            except Exception as exc:  # (a storage error: the sweep finishes the table)
                log.warning("entropy window wake failed", table=table_id, error=repr(exc)[:200])

        timer = threading.Timer(delay_s, wake)
        timer.daemon = True
        timer.start()

    def retry_later(self, table_id: str) -> None:
        """Hand the table to the background retrier (`recover` every `retry_interval_s`)."""
        with self.tables.guard:
            self._stalled.setdefault(table_id, time.monotonic())
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._retry_stalled, name="table-retrier", daemon=True
                )
                self._thread.start()

    def _retry_stalled(self) -> None:
        while True:
            time.sleep(self.retry_interval_s)
            with self.tables.guard:
                stalled = dict(self._stalled)
            if not stalled:
                return
            for table_id, since in stalled.items():
                try:
                    done = self.recover(table_id)
                except errors.NotFound:
                    done = True
                except Exception as exc:
                    if time.monotonic() - since < GIVE_UP_AFTER_VOIDS * self.void_after_s:
                        continue
                    # Still marked in the attention set: the recovery sweep goes on trying.
                    log.warning(
                        "table stays stuck; the recovery sweep retries it",
                        table=table_id,
                        error=repr(exc)[:200],
                    )
                    done = True
                if done:
                    with self.tables.guard:
                        self._stalled.pop(table_id, None)

    def recover(self, table_id: str) -> bool:
        """Finish what the table needs without waiting for a command (the retrier and the
        recovery sweep call it; any instance may): its pending process steps, the hand
        voided (every stake returned) when a step has failed for `void_after_s` since the
        table's last event (a time every instance reads the same, so the limit survives a
        restart), and its current decision's timeout and bot turn, and any requested bot,
        triggered again (each trigger is idempotent: a duplicate changes nothing). True when
        the table then waits for players only; raises what stopped it otherwise."""
        try:
            table = self.steps.drive(table_id)
        except errors.DomainError as exc:
            if isinstance(exc, EntropyWindowOpen):
                self.wake_at(table_id, exc.due_ms)
                raise
            if self._stuck_for_ms(table_id) < self.void_after_s * 1000:
                raise
            self._void_stuck(table_id, f"{type(exc).__name__}: {exc.message}")
            table = self.steps.drive(table_id)  # the void's own steps (they may fail in turn)
        self.decisions.trigger_current(table)
        if process.next_step(table) is not None:
            return False
        self._idle_shuffles(table)
        return True

    def _idle_shuffles(self, table: Table) -> None:
        """A table idle between rounds past `idle_shuffles_s` (since its last event, a time
        every instance reads the same) withdraws the shuffles it announced ahead, then
        closes and reveals them (process.Withdraw). One idle for less is marked in the
        attention set for when it will have been idle that long: the mark is durable, and
        whichever instance's recovery sweep takes it then looks again (the sweep's clear
        leaves a mark newer than its claim)."""
        shell = table.shell
        if self.idle_shuffles_s <= 0 or not shell.upcoming or shell.closing:
            return
        limit_ms = int(self.idle_shuffles_s * 1000)
        idle_ms = self._stuck_for_ms(table.table_id)
        if idle_ms < limit_ms:
            due_ms = self.clock() + limit_ms - idle_ms
            grace_ms = int(self.tables.recovery_grace_s * 1000)
            self.tables.attention.mark(table.table_id, due_ms - grace_ms)
            return
        tid = table.table_id
        reason = f"the table was idle for {limit_ms // 1000} s"

        def withdraw(t: Table) -> list[object]:
            # (only from the state judged idle: a command since then makes it busy again)
            return process.withdrawal(t, reason) if t.version == table.version else []

        self.commands.execute(tid, f"{tid}/idle/{table.version}", "table-service", withdraw)
        self.steps.drive(tid)  # close and reveal them (a dealer down: the sweep retries)

    def _stuck_for_ms(self, table_id: str) -> int:
        """How long the table's pending step has waited: since its last event was recorded."""
        version = self.tables.current(table_id).version
        last = self.tables.store.read(table_stream(table_id), version, 1)
        return self.clock() - last[0].recorded_at_ms if last else 0

    def _void_stuck(self, table_id: str, reason: str) -> None:
        """Void the round the table is stuck in (the game returns every stake; a game with
        nothing to void answers no events)."""
        table = self.tables.load(table_id)
        self.commands.execute(
            table_id,
            f"{table_id}/{process.round_of(table)}/void",
            "table-service",
            lambda t: t.game.rules.decide(t.state, c.Void(reason)),
        )
