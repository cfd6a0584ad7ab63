"""What the workers need from the outside world, as narrow protocols.

The tasks depend on these, not on gRPC or Redis directly, so the rules of "fire once, never
early, no-op when moved on" can be tested with in-memory doubles and run for real against the
table service and Redis.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadlines import Deadline
from services.scheduling.seat_request import BotSeatRequest as BotSeatRequest


class TimeoutOutcome(enum.Enum):
    """What the table service did with one timeout trigger."""

    APPLIED = "applied"  # the default action (or a time-bank extension) was recorded now
    STALE = "stale"  # the decision had already been made or the hand moved on: nothing changed
    NOT_DUE = "not_due"  # the deadline has not passed yet (the table never applies early)


class TableGateway(Protocol):
    """The table service, as the workers call it (authenticated as a service)."""

    def apply_timeout(self, deadline: Deadline) -> TimeoutOutcome:
        """Ask the table to time out exactly this decision; idempotent per deadline."""
        ...


@dataclass(slots=True)
class OpenWork:
    """What the tables wait for, as triggers: deadlines, bot turns, bots to seat."""

    deadlines: list[Deadline] = field(default_factory=list)
    swept_deadlines: list[Deadline] = field(default_factory=list)  # real-time games'
    bot_turns: list[BotTurn] = field(default_factory=list)
    unseated_bots: list[BotSeatRequest] = field(default_factory=list)


class TableScan(Protocol):
    """Every table's open triggers, read from the table service (the indexes' rebuild)."""

    def scan(self) -> OpenWork: ...


class SeatGiveUps(Protocol):
    """Requested bots that gave up seating, so their re-sends back off (`seat_give_ups`)."""

    def record(self, request: BotSeatRequest, now: float) -> None: ...

    def clear(self, request: BotSeatRequest) -> None: ...

    def due(self, requests: Sequence[BotSeatRequest], now: float) -> list[BotSeatRequest]:
        """The requests whose backoff since their last give-up is over (or never gave up)."""
        ...
