"""The command path: every command a player or a service sends follows `execute`.

Load the table (a cached state plus any newer events), answer a retry from the remembered
idempotency keys, check the caller's expected version, let the rules decide, and append the
resulting events in ONE append guarded by the loaded version and the command's idempotency
key. A Conflict (another writer, maybe another instance, got there first) reloads and
decides again. The steps that follow a command and touch nothing outside (ranking a
showdown) join its append; the others are the process's
(steps.py), taken right after.

`executing` is the path as a script (effects.py): the thread-pool runtime runs it under the
table's threading lock (`execute`), the asyncio runtime under the table's single writer
(aio_commands.py); the same checks, the same batch, the same keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from croupier.table.v1 import events_pb2
from services.games.errors import RuleViolation
from services.shared import errors
from services.table.decisions import Decisions
from services.table.effects import Append, Confirm, Load, Mark, Schedule, Script
from services.table.folding import fold_events
from services.table.shell import Table, fold_message
from services.table.steps import ProcessSteps
from services.table.tables import Tables

MAX_ATTEMPTS = 20
# At most this many side-effect-free steps (ranking hands) join a command's append.
MAX_LOCAL_STEPS = 4

Decider = Callable[[Table], Sequence[object]]


def domain_error(violation: RuleViolation) -> errors.DomainError:
    """The service error for a game's rule violation: the same kind, the message unchanged."""
    return errors.error_of_kind(violation.kind, violation.message)


class CommandPath:
    def __init__(self, tables: Tables, decisions: Decisions, steps: ProcessSteps) -> None:
        self.tables = tables
        self.decisions = decisions
        self.steps = steps

    def execute(
        self,
        table_id: str,
        key: str,
        by: str,
        decider: Decider,
        expected_version: int | None = None,
    ) -> tuple[Table, int]:
        """Run one command: ONE append, retried on conflicts; returns (table, version)."""
        script = self.executing(table_id, key, by, decider, expected_version)
        with self.tables.lock(table_id):
            return self.steps.effects.run(script)

    def executing(
        self,
        table_id: str,
        key: str,
        by: str,
        decider: Decider,
        expected_version: int | None = None,
    ) -> Script[tuple[Table, int]]:
        """`execute`'s script (the runtime holds the table's lock while it runs)."""
        if not key:
            raise errors.InvalidArgument("idempotency_key is required: a retry must reuse it")
        # Decide on the cached state first (no read); the append's expected version
        # catches a stale cache, and any refusal is re-checked against a fresh read.
        fresh = False
        for _ in range(MAX_ATTEMPTS):
            table: Table = yield Load(table_id, fresh)
            done = table.shell.version_of_key(key)
            if done is not None:
                yield Confirm(table_id)
                return table, done
            if expected_version and expected_version != table.version:
                if not fresh:
                    fresh = True
                    continue
                raise errors.Conflict(
                    f"table {table_id} is at version {table.version}, not "
                    f"{expected_version}: reload the view and decide again",
                    actual_version=table.version,
                )
            try:
                events = list(decider(table))
            except RuleViolation as violation:
                if not fresh:
                    fresh = True
                    continue
                raise domain_error(violation) from violation
            if not events:
                if not fresh:
                    fresh = True
                    continue
                return table, table.version
            batch, folded = yield from self._command_batch(table, key, by, events)
            yield Mark(table_id)
            appended: Table | None = yield Append(table, batch, key, folded)
            if appended is not None:
                yield Schedule(table, appended)
                return appended, appended.version
            fresh = True
        raise errors.Unavailable(f"table {table_id} is too busy: retry the command")

    def _command_batch(
        self, table: Table, key: str, by: str, events: list[object]
    ) -> Script[tuple[list[object], Table]]:
        """A command's append: CommandAccepted, the command's events, then the process steps
        that follow and touch nothing outside (ranking hands: `process.is_local`), then the
        ActionRequested of each decision the table now waits for. Returns the batch and the
        table it makes (versions as if appended next).

        Steps with outside effects (cards, chips, a shuffle's reveal) are never taken before
        the command is recorded: a command that loses its append (a conflict, a crash) must
        not leave cards dealt or chips moved for a decision that never happened. The process
        takes them right after, in one append of their own."""
        first = table.version + 2  # version + 1 is the CommandAccepted
        folded = fold_events(table, events, first)
        if not all(isinstance(e, events_pb2.TimeBankExtended) for e in events):
            # (a time-bank extension only moves the deadline: the same decision goes on)
            # A local step that fails (a remote ranker down) is left for the process to retry.
            run = yield from self.steps.taking(folded, MAX_LOCAL_STEPS, local_only=True)
            folded = self.decisions.ask_next(run.table, run.events, table)
            events = [*events, *run.events]
        accepted = events_pb2.CommandAccepted(key=key, by=by, events=len(events))
        # CommandAccepted only touches the shell's keys, so folding it last is the same as
        # folding it first (at its own version).
        folded = replace(folded, shell=fold_message(folded.shell, table.version + 1, accepted))
        return [accepted, *events], folded
