"""Time banks: extra thinking time a player draws on once the normal action time is spent.

Pure and clock-free like the rest of the engine: the table service passes the current time
in milliseconds and appends the events these functions return. Each seat has a bank
(`TimeBankRules.bank_ms` when seated). When a decision's deadline passes, `on_deadline`
grants an extension of up to `chunk_ms` from the bank (`TimeBankExtended`, carrying the new
deadline) instead of a timeout; with the bank empty it returns nothing and the table times
the player out (the engine's `TimeOut`). Every `refill_every_hands` hands each bank gains
`refill_ms`, never above `cap_ms`. A granted chunk is spent whether or not the player uses all
of it, so the bank never depends on when an action happened to arrive.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TimeBankRules:
    action_time_ms: int
    bank_ms: int = 0
    chunk_ms: int = 0  # 0: the whole remaining bank at once
    refill_ms: int = 0
    refill_every_hands: int = 0  # 0: never refilled
    cap_ms: int = 0  # 0: bank_ms

    def __post_init__(self) -> None:
        values = (self.action_time_ms, self.bank_ms, self.chunk_ms, self.refill_ms)
        if min(values) < 0 or self.refill_every_hands < 0 or self.cap_ms < 0:
            raise ValueError("time-bank settings must not be negative")

    @property
    def cap(self) -> int:
        return self.cap_ms or self.bank_ms


@dataclass(frozen=True, slots=True)
class TimeBankExtended:
    """The seat's normal time ran out; `used_ms` of its bank extends the decision."""

    seat: int
    hand: int
    action_number: int
    used_ms: int
    remaining_ms: int
    deadline_unix_ms: int


@dataclass(frozen=True, slots=True)
class TimeBankRefilled:
    seat: int
    added_ms: int
    remaining_ms: int


@dataclass(frozen=True, slots=True)
class TimeBankOpened:
    """A seat starts with a full bank (when it sits down)."""

    seat: int
    remaining_ms: int


TimeBankEvent = TimeBankExtended | TimeBankRefilled | TimeBankOpened


@dataclass(frozen=True, slots=True)
class TimeBanks:
    """Remaining bank per seat, in milliseconds."""

    remaining: tuple[tuple[int, int], ...] = ()

    def of(self, seat: int) -> int:
        return dict(self.remaining).get(seat, 0)


def deadline_for(rules: TimeBankRules, requested_at_ms: int) -> int:
    """When a decision requested at `requested_at_ms` runs out of normal time (0: never)."""
    return requested_at_ms + rules.action_time_ms if rules.action_time_ms > 0 else 0


def on_seated(rules: TimeBankRules, seat: int) -> list[TimeBankEvent]:
    return [TimeBankOpened(seat, rules.bank_ms)]


def on_deadline(
    banks: TimeBanks,
    rules: TimeBankRules,
    seat: int,
    hand: int,
    action_number: int,
    deadline_unix_ms: int,
) -> list[TimeBankEvent]:
    """An extension of the decision whose deadline just passed, or [] to time it out."""
    left = banks.of(seat)
    if left <= 0:
        return []
    used = min(left, rules.chunk_ms) if rules.chunk_ms > 0 else left
    return [TimeBankExtended(seat, hand, action_number, used, left - used, deadline_unix_ms + used)]


def on_hand_started(
    banks: TimeBanks, rules: TimeBankRules, hand: int, seats: Iterable[int]
) -> list[TimeBankEvent]:
    """Refills due at the start of hand number `hand` (1-based)."""
    if rules.refill_every_hands <= 0 or rules.refill_ms <= 0 or hand % rules.refill_every_hands:
        return []
    events: list[TimeBankEvent] = []
    for seat in seats:
        left = banks.of(seat)
        added = min(rules.refill_ms, max(0, rules.cap - left))
        if added > 0:
            events.append(TimeBankRefilled(seat, added, left + added))
    return events


def apply(banks: TimeBanks, event: TimeBankEvent) -> TimeBanks:
    remaining = dict(banks.remaining)
    remaining[event.seat] = event.remaining_ms
    return TimeBanks(tuple(sorted(remaining.items())))


def apply_all(banks: TimeBanks, events: Iterable[TimeBankEvent]) -> TimeBanks:
    for event in events:
        banks = apply(banks, event)
    return banks
