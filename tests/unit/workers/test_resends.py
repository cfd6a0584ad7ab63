"""The sweeper's resends: overdue bot turns and bot seatings are sent again, once per resend
period, until their task resolves them; a scan of the tables adds back what the indexes lost;
a bot that gave up waits for its backoff. Only index heads are read: no table."""

from __future__ import annotations

from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadline_index import InMemoryDeadlineIndex
from services.scheduling.deadlines import Deadline
from services.scheduling.resend_index import InMemoryResendIndex
from services.shared.errors import Unavailable
from services.workers.ports import BotSeatRequest, OpenWork, TimeoutOutcome
from services.workers.seat_give_ups import InMemorySeatGiveUps, backoff
from services.workers.sweeper import Resends, SweepReport, sweep

TURN = BotTurn("t1", 3, 7, seat=1, bot_id="bot-tight-50-t1-s1", policy="tight")
SEAT = BotSeatRequest("t2", 0, "random", 0.0)


class NoTable:
    def apply_timeout(self, deadline: Deadline) -> TimeoutOutcome:
        raise AssertionError("no deadline is due in these tests")


class World:
    def __init__(self) -> None:
        self.turns = InMemoryResendIndex()
        self.seats = InMemoryResendIndex()
        self.give_ups = InMemorySeatGiveUps()
        self.sent_turns: list[BotTurn] = []
        self.sent_seats: list[BotSeatRequest] = []
        self.resends = Resends(
            bot_turns=self.turns,
            send_bot_turn=self.sent_turns.append,
            bot_resend=10.0,
            seat_bots=self.seats,
            send_seat_bot=self.sent_seats.append,
            seat_resend=30.0,
            give_ups=self.give_ups,
        )

    def sweep(self, now: float, work: OpenWork | None = None) -> SweepReport:
        scan = (lambda: work) if work is not None else None
        return sweep(
            InMemoryDeadlineIndex(), NoTable(), now=now, grace=0.0, resends=self.resends, scan=scan
        )


def test_an_unplayed_bot_turn_is_sent_again_once_per_resend_period_until_resolved() -> None:
    world = World()
    world.turns.arm(TURN.table_id, TURN.encode(), 100.0)  # overdue at 100 s
    assert world.sweep(99.0).bot_turns_resent == 0
    assert world.sweep(100.0).bot_turns_resent == 1 and world.sent_turns == [TURN]
    assert world.sweep(105.0).bot_turns_resent == 0  # sent at 100: not again before 110
    assert world.sweep(110.0).bot_turns_resent == 1
    world.turns.resolve(TURN.encode())  # the bot played it
    assert world.sweep(200.0).bot_turns_resent == 0 and len(world.sent_turns) == 2


def test_arming_a_tables_next_bot_turn_drops_its_previous_one() -> None:
    world = World()
    world.turns.arm("t1", TURN.encode(), 100.0)
    later = BotTurn("t1", 3, 8, seat=0, bot_id="bot-random-0-t1-s0", policy="random")
    world.turns.arm("t1", later.encode(), 100.0)
    world.sweep(100.0)
    assert world.sent_turns == [later]


def test_a_seating_is_sent_again_until_resolved_and_backs_off_after_a_give_up() -> None:
    world = World()
    world.seats.add(SEAT.encode(), 100.0)
    assert world.sweep(100.0).bots_reseated == 1  # (each sweep moves it 30 s on)
    world.give_ups.record(SEAT, now=101.0)  # that try gave up (refused): wait backoff(1)
    assert world.sweep(130.0).bots_reseated == 1  # 101 + backoff(1) <= 130
    world.give_ups.record(SEAT, now=131.0)  # gave up again: backoff(2)
    world.give_ups.record(SEAT, now=155.0)  # and again: backoff(3), 40 s from 155
    assert world.sweep(160.0).bots_reseated == 0  # its period is over, its backoff is not
    assert world.sweep(190.0).bots_reseated == 0
    assert world.sweep(220.0).bots_reseated == 1
    world.seats.resolve(SEAT.encode())  # seated
    assert world.sweep(10_000.0).bots_reseated == 0
    assert world.sent_seats == [SEAT, SEAT, SEAT]
    assert backoff(3) == 40.0


def test_a_scan_adds_back_what_the_indexes_lost_and_the_same_sweep_sends_it() -> None:
    world = World()
    lost = Deadline("t3", 1, 2, due_at=50.0)
    report = world.sweep(100.0, OpenWork(deadlines=[], bot_turns=[TURN], unseated_bots=[SEAT]))
    assert report.scanned and report.rebuilt == 2
    assert world.sent_turns == [TURN] and world.sent_seats == [SEAT]
    index = InMemoryDeadlineIndex()
    index.add(lost)
    again = sweep(
        index,
        NoTable(),
        now=0.0,  # nothing due yet: the scan only finds what is there already
        grace=0.0,
        resends=world.resends,
        scan=lambda: OpenWork(deadlines=[lost], bot_turns=[TURN], unseated_bots=[SEAT]),
    )
    assert again.rebuilt == 0


def test_a_table_service_down_during_the_scan_does_not_stop_the_sweep() -> None:
    world = World()
    world.turns.arm(TURN.table_id, TURN.encode(), 100.0)

    def down() -> OpenWork:
        raise Unavailable("table service UNAVAILABLE")

    report = sweep(
        InMemoryDeadlineIndex(), NoTable(), now=100.0, grace=0.0, resends=world.resends, scan=down
    )
    assert not report.scanned and report.errors == ["rebuild: table service UNAVAILABLE"]
    assert report.bot_turns_resent == 1
