"""The decisions a table waits for: recorded (ActionRequested, with its deadline) in the
append that makes them owed, then triggered (the timeout and the bot's turn, through the
scheduler: triggers, never the authority).

A decision keeps its number and deadline while the table waits on it (other players joining,
sitting out, a buy-in posted); only a time-bank extension moves its deadline. A trigger that
cannot be sent never fails the command that led to it: `retry_later` hands the table to the
background retrier, and `trigger_current` sends lost triggers again.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from croupier.table.v1 import events_pb2
from services.games.poker.chance import pending_chance
from services.games.poker.legal import legal_actions
from services.games.poker.state import TableState
from services.table.folding import fold_events
from services.table.ports import SchedulerPort
from services.table.shell import Table

log = structlog.get_logger(__name__)


class Decisions:
    def __init__(
        self,
        scheduler: SchedulerPort,
        clock: Callable[[], int],
        retry_later: Callable[[str], None],
    ) -> None:
        self.scheduler = scheduler
        self.clock = clock
        self.retry_later = retry_later

    def requested(self, table: Table, engine: TableState) -> list[object]:
        """The ActionRequested of the decision `engine` waits for (none when it waits for
        no player), numbered on from the table's last one in the same hand."""
        hand = engine.hand
        if hand is None or hand.to_act is None or pending_chance(engine) is not None:
            return []
        previous = table.shell.decision
        number = previous.action_number + 1 if previous and previous.hand == hand.number else 1
        action_time = table.shell.action_time_ms
        deadline = self.clock() + action_time if action_time > 0 else 0
        legal = legal_actions(engine, hand.to_act)
        return [
            events_pb2.ActionRequested(
                hand=hand.number,
                seat=hand.to_act,
                action_number=number,
                deadline_unix_ms=deadline,
                legal_actions=sorted(legal.actions),
                to_call=legal.to_call,
                min_to=legal.min_to,
                max_to=legal.max_to,
                all_in_to=legal.all_in_to,
            )
        ]

    def ask_next(self, table: Table, events: list[object], before: Table) -> Table:
        """Add the ActionRequested to `events` when `table` waits for a player on a new
        decision (not the one `before` already waited on); the table after."""
        if same_decision(before, table):
            return table
        asked = self.requested(table, table.engine)
        events += asked
        return fold_events(table, asked, table.version + 1)

    def after_append(self, before: Table, after: Table) -> None:
        """Schedule the timeout / bot turn of a new decision (a trigger, never the authority).
        The decision is recorded already, so a trigger that cannot be sent (the broker is
        down) never fails the command: the retrier and the recovery sweep send it again."""
        try:
            self._schedule(before, after)
        except Exception as exc:  # any broker or transport error: retried, never fatal
            log.warning(
                "could not schedule the next decision; retrying in the background",
                table=after.table_id,
                error=repr(exc)[:200],
            )
            self.retry_later(after.table_id)

    def _schedule(self, before: Table, after: Table) -> None:
        decision = after.shell.decision
        if decision is None or decision == before.shell.decision:
            return
        if decision.deadline_unix_ms:
            self.scheduler.schedule_timeout(
                after.table_id, decision.hand, decision.action_number, decision.deadline_unix_ms
            )
        previous = before.shell.decision
        if previous and (previous.hand, previous.action_number) == (
            decision.hand,
            decision.action_number,
        ):
            return  # a time-bank extension: only the timeout moved, the turn is the same
        seat = after.engine.seats[decision.seat]
        if seat is not None and seat.player in after.shell.bots:
            self.scheduler.schedule_bot_turn(
                after.table_id, decision.hand, decision.action_number, decision.seat, seat.player
            )

    def trigger_current(self, table: Table) -> None:
        """Send again the triggers of what the table waits for, those the scheduler has lost
        (a worker or broker failed, or this table's instance before it could send them)."""
        decision = table.shell.decision
        hand = table.engine.hand
        tid = table.table_id
        if decision is not None and hand is not None and hand.number == decision.hand:
            number = decision.action_number
            if decision.deadline_unix_ms:
                self.scheduler.schedule_timeout(
                    tid, decision.hand, number, decision.deadline_unix_ms, only_if_lost=True
                )
            seat = table.engine.seats[decision.seat]
            if seat is not None and seat.player in table.shell.bots:
                self.scheduler.schedule_bot_turn(
                    tid, decision.hand, number, decision.seat, seat.player, only_if_lost=True
                )
        shell = table.shell
        if len(shell.requested_bots) > len(shell.bots_seated()):
            # (some requested bot may never have sat down: a seated one finds itself seated)
            for index, (policy, difficulty) in enumerate(shell.requested_bots):
                self.scheduler.schedule_seat_bot(tid, index, policy, difficulty, only_if_lost=True)


def same_decision(before: Table, after: Table) -> bool:
    """Whether `after` waits on the decision already requested in `before`: the hand is
    untouched (another player joined, sat out, topped up; a buy-in was posted) and the
    recorded request is this seat's. Requesting it again would restart the seat's clock
    and give the decision a new number, making its scheduled timeout stale; its deadline
    moves only by a time-bank extension."""
    hand, decision = after.engine.hand, before.shell.decision
    if hand is None or decision is None:
        return False
    if (decision.hand, decision.seat) != (hand.number, hand.to_act):
        return False  # (an action moved the turn on: no need to compare the hands)
    # Commands that leave the hand alone keep its very object (the reducer replaces only
    # what an event changes), so `is` answers at once; `==` is the fallback for a copy.
    previous = before.engine.hand
    return hand is previous or hand == previous
