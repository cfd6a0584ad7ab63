"""Deadlines: a decision not made in time gets the game's default (or the seat's time bank).

The table's own clock decides whether a recorded deadline has passed: a trigger that arrives
early (a worker's clock ahead, a replayed task) is refused with "not due until <deadline>",
which the workers treat as "retry later". A move its player sent before the deadline wins
over the timeout even when the timeout gets the table's lock first (`receiving_act`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.games.timebank import TimeBankExtended, on_deadline
from services.shared import errors
from services.table.commands import CommandPath
from services.table.decisions import decision_by_number, owed, player_at
from services.table.retrier import Retrier
from services.table.shell import Decision, Table
from services.table.tables import Tables


class Timeouts:
    def __init__(
        self,
        tables: Tables,
        commands: CommandPath,
        retrier: Retrier,
        clock: Callable[[], int],
    ) -> None:
        self.tables = tables
        self.commands = commands
        self.retrier = retrier
        self.clock = clock
        self._guard = threading.Lock()
        # Moves being applied, by table: (player, unix ms the application received it). A
        # timeout waits for a move its player sent before the deadline (`apply_timeout`).
        self._acting: dict[str, list[tuple[str, int]]] = {}

    @contextlib.contextmanager
    def receiving_act(self, table_id: str, player: str) -> Iterator[int]:
        """Mark a move of `player` as received now (table clock) until it is applied or
        refused: `apply_timeout` answers "not due" while such a move is in flight, and the
        worker asks again a moment later."""
        entry = (player, self.clock())
        with self._guard:
            self._acting.setdefault(table_id, []).append(entry)
        try:
            yield entry[1]
        finally:
            with self._guard:
                acting = self._acting[table_id]
                acting.remove(entry)
                if not acting:
                    del self._acting[table_id]

    def _act_in_flight(self, table_id: str, player: str, deadline_unix_ms: int) -> bool:
        """Whether this instance is applying a move of `player` received by the deadline."""
        with self._guard:
            return any(
                who == player and received <= deadline_unix_ms
                for who, received in self._acting.get(table_id, ())
            )

    def apply_timeout(self, table_id: str, hand: int, action_number: int) -> tuple[bool, int]:
        """The game's default for exactly that decision (`TimeOut` with the game's own
        deadline id), or the seat's time bank extending it; a stale or repeated request is a
        no-op."""
        table = self.tables.load(table_id)
        decision = decision_by_number(table, hand, action_number)
        if decision is None:
            return False, table.version
        self._require_due(table_id, decision.deadline_unix_ms)
        due = decision.deadline_unix_ms

        def decide(t: Table) -> list[object]:
            current = decision_by_number(t, hand, action_number)
            if current is None or current.deadline_unix_ms != due:
                return []  # made, moved on, or already extended (the new deadline's job)
            self._require_due(table_id, current.deadline_unix_ms)
            player = player_at(t, current.seat)
            if player is not None and self._act_in_flight(
                table_id, player, current.deadline_unix_ms
            ):
                raise errors.FailedPrecondition(
                    f"timeout of table {table_id} not due: {player}'s move, received by the "
                    f"deadline {current.deadline_unix_ms}, is being applied; retry"
                )
            if _banked(t, current):
                extension = on_deadline(
                    t.shell.banks, t.shell.bank_rules, current.seat, hand, action_number, due
                )
                if extension and isinstance(extension[0], TimeBankExtended):
                    granted = extension[0]
                    return [
                        events_pb2.TimeBankExtended(
                            hand=hand,
                            seat=granted.seat,
                            action_number=action_number,
                            used_ms=granted.used_ms,
                            remaining_ms=granted.remaining_ms,
                            deadline_unix_ms=granted.deadline_unix_ms,
                        )
                    ]
            return list(
                t.game.rules.decide(
                    t.state, c.TimeOut(current.seat, current.game_id, current.since)
                )
            )

        # One key per deadline: an extension and the final timeout are separate commands.
        key = f"{table_id}/{hand}/timeout/{action_number}/{due}"
        before = table.version
        table, version = self.commands.execute(table_id, key, "timeout", decide)
        self.retrier.keep_going(table_id, table)
        return version != before, version

    def _require_due(self, table_id: str, deadline_unix_ms: int) -> None:
        now = self.clock()
        if deadline_unix_ms and now < deadline_unix_ms:
            raise errors.FailedPrecondition(
                f"timeout of table {table_id} not due until {deadline_unix_ms} "
                f"(unix ms; {deadline_unix_ms - now} ms from now): retry then"
            )


def _banked(table: Table, decision: Decision) -> bool:
    """Whether the game lets the seat's time bank extend this decision."""
    return any(
        d.time_bank for d in owed(table) if (d.seat, d.id) == (decision.seat, decision.game_id)
    )
