"""Deadlines: which decision a timeout is for, when it falls due, and how it is encoded.

A deadline names one decision exactly: the table, the hand number and the action number within
the hand (`TableView.action_number`). The table service applies a timeout only while that
decision is still open, so any number of late, duplicate or replayed triggers for the same
deadline change the table at most once. Everything here is pure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Deadline:
    """One pending decision's deadline.

    `due_at` is wall-clock time in seconds since the epoch (the table records it in Unix
    milliseconds; `from_unix_ms` converts).
    """

    table_id: str
    hand_number: int
    action_number: int
    due_at: float

    @classmethod
    def from_unix_ms(
        cls, table_id: str, hand_number: int, action_number: int, due_unix_ms: int
    ) -> Deadline:
        return cls(table_id, hand_number, action_number, due_unix_ms / 1000.0)

    @property
    def key(self) -> str:
        """A stable identity for this decision, used as the Redis member and the task id."""
        return f"{self.table_id}/{self.hand_number}/{self.action_number}"

    def member(self) -> str:
        """The decision alone (no due time): the deadline index's member, scored by `due_at`."""
        return json.dumps(
            [self.table_id, self.hand_number, self.action_number], separators=(",", ":")
        )

    @classmethod
    def from_member(cls, raw: str | bytes, due_at: float) -> Deadline:
        table_id, hand_number, action_number = json.loads(raw)
        return cls(str(table_id), int(hand_number), int(action_number), float(due_at))

    def encode(self) -> str:
        """Task argument: compact JSON with sorted keys, so equal deadlines encode equally."""
        return json.dumps(
            {
                "t": self.table_id,
                "h": self.hand_number,
                "a": self.action_number,
                "d": self.due_at,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, raw: str | bytes) -> Deadline:
        data = json.loads(raw)
        return cls(
            table_id=str(data["t"]),
            hand_number=int(data["h"]),
            action_number=int(data["a"]),
            due_at=float(data["d"]),
        )


def countdown_for(deadline: Deadline, now: float, max_countdown: float) -> tuple[float, bool]:
    """How long to wait before the next trigger, and whether that trigger is the real one.

    Celery's Redis transport redelivers an unacknowledged ETA task once its visibility timeout
    passes, so no countdown may approach it. A deadline further away than `max_countdown` is
    reached in hops: the task fires early, sees it is not due yet and re-arms itself.
    Returns `(seconds_to_wait, is_final_hop)`; the wait is never negative.
    """
    remaining = max(0.0, deadline.due_at - now)
    if remaining <= max_countdown:
        return remaining, True
    return max_countdown, False
