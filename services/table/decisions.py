"""The decisions a table waits for: recorded (ActionRequested, with its deadline) in the
append that makes them owed, then triggered (each timeout and each bot's turn, through the
scheduler: triggers, never the authority).

The game names what is owed (`GameRules.deadlines`: zero or more per seat, each with its own
id); the shell numbers each decision in its round ("<round>/<n>", the envelope's deadline id)
and records it once: a decision keeps its number and deadline while the table waits on it
(other players joining, sitting out, a buy-in posted), and only a time-bank extension or the
game restarting it moves its deadline (a deadline owed at a new `since`, Spit's stall: asked
again under its own number, moved in place). A recorded decision is open while the game
still owes it. A trigger that cannot
be sent never fails the command that led to it: `retry_later` hands the table to the
background retrier, and `trigger_current` sends lost triggers again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import structlog

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.table.folding import fold_events
from services.table.ports import SchedulerPort
from services.table.process import round_of
from services.table.shell import Decision, Table

log = structlog.get_logger(__name__)


# The last game state asked for its deadlines, and the answer: a command asks for them when
# it decides what to record and again when it schedules the triggers, of the same state.
_last_owed: tuple[object, Sequence[c.Deadline]] = (None, ())


def owed(table: Table) -> Sequence[c.Deadline]:
    """The decisions the game owes in the table's state (asked once per state)."""
    global _last_owed
    state, deadlines = _last_owed
    if state is table.state and state is not None:
        return deadlines
    deadlines = table.game.rules.deadlines(table.state)
    _last_owed = (table.state, deadlines)  # (one assignment: safe across threads)
    return deadlines


def open_decisions(table: Table) -> list[Decision]:
    """The recorded decisions the game still owes, in the order they were asked for."""
    recorded = table.shell.decisions
    if not recorded:
        return []
    due = {(d.seat, d.id) for d in owed(table)}
    return [d for d in recorded if (d.seat, d.game_id) in due]


def decision_by_number(table: Table, hand: int, number: int) -> Decision | None:
    """The open decision "<hand>/<number>", if the table still waits on it."""
    return next(
        (d for d in open_decisions(table) if (d.hand, d.action_number) == (hand, number)), None
    )


def player_at(table: Table, seat: int) -> str | None:
    return table.shell.player_at(seat)


def may_trigger(before: Table, after: Table) -> bool:
    """Whether an append from `before` to `after` may change the table's triggers: a new
    decision was asked; or, in a real-time game, any change of its state (a decision made
    without a new one asked, a player's ready or a slap, re-states its open deadlines, so a
    closed one leaves the swept index at once instead of being fired for nothing)."""
    if after.shell.decisions is not before.shell.decisions:
        return True
    if entropy_answerers(before, after):
        return True
    return after.game.realtime and after.state is not before.state


def _entropy_stages(table: Table) -> frozenset[tuple[str, bool]]:
    return frozenset((u.shuffle_id, u.sealed) for u in table.shell.upcoming)


def entropy_answerers(before: Table, after: Table) -> list[str]:
    """The seated bots the append gives entropy rounds to answer: every one when a shuffle
    was announced (commitments) or sealed (reveals), a bot that sat down while shuffles are
    announced (it may commit to them too); none at a table without bots."""
    if not after.shell.bots:
        return []
    if after.shell.upcoming is not before.shell.upcoming and not _entropy_stages(
        after
    ) <= _entropy_stages(before):
        return seated_bots(after)
    if after.shell.players is before.shell.players or not after.shell.upcoming:
        return []
    earlier = set(seated_bots(before))
    return [bot for bot in seated_bots(after) if bot not in earlier]


def seated_bots(table: Table) -> list[str]:
    bots = table.shell.bots
    return [player for _, player in table.shell.players if player in bots]


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

    def requested(self, table: Table) -> list[object]:
        """An ActionRequested for each decision the game owes now that the table has not
        recorded yet, numbered on from the round's last one; and for each recorded one the
        game restarted (another `since`), under its own number: moved in place."""
        deadlines = owed(table)
        if not deadlines:
            return []
        shell = table.shell
        round_ = round_of(table)
        current = shell.decisions if shell.decision_round == round_ else ()
        recorded = {(d.seat, d.game_id): d for d in current}
        number = current[-1].action_number if current else 0
        now = self.clock()
        asked: list[object] = []
        for deadline in deadlines:
            known = recorded.get((deadline.seat, deadline.id))
            if known is not None and known.since == deadline.since:
                continue
            if known is None:
                number += 1
            after = shell.action_time_ms if deadline.after_ms is None else deadline.after_ms
            request = events_pb2.ActionRequested(
                hand=round_,
                seat=deadline.seat,
                action_number=number if known is None else known.action_number,
                deadline_unix_ms=now + after if after > 0 else 0,
                game_deadline=deadline.id,
                since=deadline.since,
            )
            table.game.fill_decision(table.state, deadline.seat, request)
            asked.append(request)
        return asked

    def ask_next(self, table: Table, events: list[object], before: Table) -> Table:
        """Add to `events` the ActionRequested of every decision `table` waits for that is not
        recorded yet; the table after. When the events left the game's state as it was in
        `before` (a buy-in posted, a cash-out paid), the game owes what it owed then, and
        every append records all of that: nothing to ask."""
        if table.state is before.state:
            return table
        asked = self.requested(table)
        if not asked:
            return table
        events += asked
        return fold_events(table, asked, table.version + 1)

    def after_append(self, before: Table, after: Table) -> None:
        """Schedule the timeouts / bot turns of new decisions (triggers, never the authority).
        The decisions are recorded already, so a trigger that cannot be sent (the broker is
        down) never fails the command: the retrier and the recovery sweep send it again.
        (`may_trigger` says when there is anything to do.)"""
        if not may_trigger(before, after):
            return
        try:
            answerers = entropy_answerers(before, after)
            if answerers:
                # (before the bots' turns: a bot with no turn in the hand answers too)
                self.scheduler.schedule_bot_entropy(after.table_id, answerers)
            self._schedule(before, after)
        except Exception as exc:  # any broker or transport error: retried, never fatal
            log.warning(
                "could not schedule the next decision; retrying in the background",
                table=after.table_id,
                error=repr(exc)[:200],
            )
            self.retry_later(after.table_id)

    def _schedule(self, before: Table, after: Table) -> None:
        old, new = before.shell.decisions, after.shell.decisions
        bots = after.shell.bots
        if not bots and not any(d.deadline_unix_ms for d in (*old, *new)):
            return  # an untimed table without bots: nothing to trigger
        # Decisions are appended in order within a round: when `new` extends `old`, only its
        # tail is new (an extension replaces one in place: then every one is compared).
        same_start = len(new) > len(old) and (not old or new[len(old) - 1] is old[-1])
        fresh = new[len(old) :] if same_start else new
        earlier = {} if same_start else {(d.hand, d.action_number): d for d in old}
        # The timeouts: the table's open timed decisions, all at once (the scheduler drops
        # those the game closed or renamed and sends triggers for the new or moved ones).
        timed = [
            (d.hand, d.action_number, d.deadline_unix_ms)
            for d in open_decisions(after)
            if d.deadline_unix_ms
        ]
        # A real-time game's deadlines move with every card played: swept from the index,
        # never a task each.
        realtime = after.game.realtime
        if timed or any(d.deadline_unix_ms for d in old):  # (an untimed table: no call)
            self.scheduler.schedule_timeouts(after.table_id, timed, swept=realtime)
        if realtime:
            return  # its bots are hosted players: they play what they see, no turns
        for decision in fresh:
            previous = earlier.get((decision.hand, decision.action_number))
            if previous == decision:
                continue
            if previous is not None or not bots:
                continue  # (a time-bank extension: only the timeout moved, the turn is the same)
            player = player_at(after, decision.seat)
            if player is not None and player in bots:
                self.scheduler.schedule_bot_turn(
                    after.table_id, decision.hand, decision.action_number, decision.seat, player
                )

    def trigger_current(self, table: Table) -> None:
        """Send again the triggers of what the table waits for, those the scheduler has lost
        (a worker or broker failed, or this table's instance before it could send them)."""
        tid = table.table_id
        realtime = table.game.realtime
        for decision in open_decisions(table):
            number = decision.action_number
            if decision.deadline_unix_ms:
                self.scheduler.schedule_timeout(
                    tid,
                    decision.hand,
                    number,
                    decision.deadline_unix_ms,
                    only_if_lost=True,
                    swept=realtime,
                )
            player = player_at(table, decision.seat)
            if not realtime and player is not None and player in table.shell.bots:
                self.scheduler.schedule_bot_turn(
                    tid, decision.hand, number, decision.seat, player, only_if_lost=True
                )
        shell = table.shell
        if len(shell.requested_bots) > len(shell.bots_seated()):
            # (some requested bot may never have sat down: a seated one finds itself seated)
            for index, (policy, difficulty) in enumerate(shell.requested_bots):
                self.scheduler.schedule_seat_bot(tid, index, policy, difficulty, only_if_lost=True)
