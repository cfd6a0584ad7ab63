"""The deadline index keyed by table and deadline id: several open decisions per table, each
triggered once, those the game closes or renames dropped, and each firing once."""

from __future__ import annotations

from typing import Any

from croupier.table.v1 import table_pb2
from services.scheduling.deadline_index import InMemoryDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.scheduling.resend_index import InMemoryResendIndex
from services.scheduling.scheduler import CeleryScheduler
from services.workers.ports import OpenWork, TimeoutOutcome
from services.workers.sweeper import sweep
from services.workers.table_scan import open_work
from services.workers.timeouts import FireStep, fire


class SentTasks:
    """Celery's `send_task`, recorded (the unit under test is what the scheduler sends)."""

    def __init__(self) -> None:
        self.sent: list[Deadline] = []

    def send_task(self, name: str, args: list[str], **_: Any) -> None:
        self.sent.append(Deadline.decode(args[0]))


class Table:
    """Open decisions by key; a timeout applies once, then is stale."""

    def __init__(self, *open_: Deadline) -> None:
        self.open = {d.key for d in open_}
        self.applied: list[str] = []

    def apply_timeout(self, deadline: Deadline) -> TimeoutOutcome:
        if deadline.key not in self.open:
            return TimeoutOutcome.STALE
        self.open.discard(deadline.key)
        self.applied.append(deadline.key)
        return TimeoutOutcome.APPLIED


def scheduler(index: InMemoryDeadlineIndex, celery: SentTasks) -> CeleryScheduler:
    return CeleryScheduler(
        celery,  # type: ignore[arg-type]
        index,
        max_countdown=300.0,
        bot_turns=InMemoryResendIndex(),
        seat_bots=InMemoryResendIndex(),
        clock=lambda: 0.0,
    )


def test_both_seats_deadlines_are_triggered_and_each_fires_once() -> None:
    index, celery = InMemoryDeadlineIndex(), SentTasks()
    scheduler(index, celery).schedule_timeouts("t", [(1, 1, 5_000), (1, 2, 5_000)])
    seat0, seat1 = Deadline("t", 1, 1, 5.0), Deadline("t", 1, 2, 5.0)
    assert celery.sent == [seat0, seat1]
    table = Table(seat0, seat1)
    for trigger in [*celery.sent, *celery.sent]:  # each delivered twice (a redelivery)
        fire(trigger, index=index, gateway=table, clock=lambda: 6.0, sleep=lambda _: None)
    assert table.applied == [seat0.key, seat1.key]
    assert index.size() == 0


def test_a_renamed_deadline_is_dropped_and_only_new_or_moved_ones_are_sent() -> None:
    index, celery = InMemoryDeadlineIndex(), SentTasks()
    schedule = scheduler(index, celery)
    schedule.schedule_timeouts("t", [(1, 1, 5_000), (1, 2, 9_000)])
    # A move renamed decision 2 (now 3) and left decision 1 as it was.
    schedule.schedule_timeouts("t", [(1, 1, 5_000), (1, 3, 9_500)])
    assert celery.sent[2:] == [Deadline("t", 1, 3, 9.5)]
    # The renamed one's trigger, when it comes, finds nothing to do.
    assert fire(celery.sent[1], index=index, gateway=Table(), clock=lambda: 9.0).step is (
        FireStep.CANCELLED
    )
    table = Table(Deadline("t", 1, 1, 5.0), Deadline("t", 1, 3, 9.5))
    report = sweep(index, table, now=20.0, grace=0.0)
    assert report.applied == 2 and table.applied == ["t/1/1", "t/1/3"]


def test_the_scan_finds_every_open_deadline_of_a_view() -> None:
    view = table_pb2.TableView(table_id="t", hand_number=4, hand_in_progress=True, to_act=-1)
    view.deadlines.add(seat=0, id="4/1", deadline_unix_ms=7_000)
    view.deadlines.add(seat=1, id="4/2", deadline_unix_ms=7_000)
    view.deadlines.add(seat=1, id="4/3", deadline_unix_ms=0)  # no time limit
    work = OpenWork()
    open_work(view, work)
    assert work.deadlines == [Deadline("t", 4, 1, 7.0), Deadline("t", 4, 2, 7.0)]
