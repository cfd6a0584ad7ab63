"""Firing a timeout trigger: never early, once per decision, nothing once the game moved on."""

from __future__ import annotations

from services.scheduling.deadline_index import InMemoryDeadlineIndex
from services.scheduling.deadlines import Deadline, countdown_for
from services.shared.errors import Unavailable
from services.workers.ports import OpenWork, TimeoutOutcome
from services.workers.sweeper import sweep
from services.workers.timeouts import FireStep, fire


class FakeTable:
    """A table with one open decision per (table, hand, action): the first timeout applies."""

    def __init__(self, now: float = 0.0) -> None:
        self.open: set[str] = set()
        self.applied: list[str] = []
        self.now = now
        self.down = False

    def apply_timeout(self, deadline: Deadline) -> TimeoutOutcome:
        if self.down:
            raise Unavailable("table service unreachable")
        if self.now < deadline.due_at:
            return TimeoutOutcome.NOT_DUE
        if deadline.key not in self.open:
            return TimeoutOutcome.STALE
        self.open.discard(deadline.key)
        self.applied.append(deadline.key)
        return TimeoutOutcome.APPLIED


def test_deadline_round_trips_through_its_encoding() -> None:
    deadline = Deadline("t1", 3, 7, 1234.5)
    assert Deadline.decode(deadline.encode()) == deadline
    assert Deadline.from_unix_ms("t1", 3, 7, 1_234_500) == deadline


def test_long_countdowns_hop_below_the_visibility_timeout() -> None:
    deadline = Deadline("t", 1, 1, due_at=1000.0)
    assert countdown_for(deadline, now=0.0, max_countdown=300.0) == (300.0, False)
    assert countdown_for(deadline, now=800.0, max_countdown=300.0) == (200.0, True)
    assert countdown_for(deadline, now=1001.0, max_countdown=300.0) == (0.0, True)


def test_trigger_that_arrives_early_waits_until_the_deadline_before_acting() -> None:
    clock = [9.8]
    table = FakeTable(now=10.0)
    deadline = Deadline("t", 1, 1, due_at=10.0)
    table.open.add(deadline.key)
    index = InMemoryDeadlineIndex()
    index.add(deadline)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    result = fire(deadline, index=index, gateway=table, clock=lambda: clock[0], sleep=sleep)
    assert result.step is FireStep.APPLIED
    assert abs(slept[0] - 0.2) < 1e-9
    assert table.applied == [deadline.key]


def test_a_far_away_trigger_is_rearmed_not_applied() -> None:
    table = FakeTable(now=0.0)
    deadline = Deadline("t", 1, 1, due_at=100.0)
    index = InMemoryDeadlineIndex()
    index.add(deadline)
    result = fire(deadline, index=index, gateway=table, clock=lambda: 0.0, sleep=lambda s: None)
    assert result.step is FireStep.REARM
    assert result.next == deadline
    assert table.applied == []


def test_a_trigger_for_a_deadline_a_time_bank_extended_waits_for_the_new_deadline() -> None:
    table = FakeTable(now=10.0)
    first = Deadline("t", 1, 1, due_at=10.0)
    extended = Deadline("t", 1, 1, due_at=40.0)
    table.open.add(first.key)
    index = InMemoryDeadlineIndex()
    index.add(first)
    index.add(extended)  # the table spent the normal time and moved the deadline
    result = fire(first, index=index, gateway=table, clock=lambda: 10.0, sleep=lambda s: None)
    assert result.step is FireStep.REARM
    assert result.next == extended
    assert table.applied == []


def test_duplicate_delivery_changes_the_table_once() -> None:
    table = FakeTable(now=10.0)
    deadline = Deadline("t", 1, 1, due_at=5.0)
    table.open.add(deadline.key)
    index = InMemoryDeadlineIndex()
    index.add(deadline)
    steps = [fire(deadline, index=index, gateway=table, clock=lambda: 10.0).step for _ in range(3)]
    assert steps == [FireStep.APPLIED, FireStep.CANCELLED, FireStep.CANCELLED]
    assert table.applied == [deadline.key]


def test_trigger_for_a_decision_already_made_is_a_no_op() -> None:
    table = FakeTable(now=10.0)
    deadline = Deadline("t", 1, 1, due_at=5.0)
    index = InMemoryDeadlineIndex()
    index.add(deadline)  # the table never resolved it through the scheduler, but the player acted
    result = fire(deadline, index=index, gateway=table, clock=lambda: 10.0)
    assert result.step is FireStep.STALE
    assert table.applied == []
    assert not index.contains(deadline)


def test_sweeper_fires_only_deadlines_past_the_grace_and_keeps_failures() -> None:
    table = FakeTable(now=100.0)
    index = InMemoryDeadlineIndex()
    overdue = Deadline("t", 1, 1, due_at=90.0)
    fresh = Deadline("t", 1, 2, due_at=99.9)
    resolved = Deadline("u", 4, 9, due_at=80.0)
    for deadline in (overdue, fresh):
        table.open.add(deadline.key)
    for deadline in (overdue, fresh, resolved):
        index.add(deadline)

    report = sweep(index, table, now=100.0, grace=0.25)

    assert (report.applied, report.stale) == (1, 1)
    assert table.applied == [overdue.key]
    assert index.contains(fresh) and not index.contains(overdue)

    table.down = True
    later = sweep(index, table, now=101.0, grace=0.25)
    assert later.failed == 1 and index.contains(fresh)


def test_sweeper_rebuilds_lost_deadlines_from_a_scan_of_the_tables() -> None:
    table = FakeTable(now=100.0)
    lost = Deadline("t", 2, 5, due_at=50.0)
    table.open.add(lost.key)
    index = InMemoryDeadlineIndex()
    report = sweep(index, table, now=100.0, grace=0.25, scan=lambda: OpenWork(deadlines=[lost]))
    assert report.rebuilt == 1 and report.scanned
    assert table.applied == [lost.key]
