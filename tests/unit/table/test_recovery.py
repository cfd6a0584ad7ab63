"""The attention set and the recovery sweep: a table left mid-process by a failed instance is
finished by any instance, only once nobody has written it for a grace period; one stuck past
the void limit (counted from its last event, which survives a restart) is voided; triggers
that could not be sent are sent again. No servers: the in-memory store, clocks injected."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from services.games.cardtext import Card
from services.games.contract import DealPurpose
from services.games.poker import events as ev
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared import errors
from services.shared.eventstore import InMemoryEventStore
from services.table import codec
from services.table.application import TableApplication, TableSpec, table_stream
from services.table.attention import InMemoryAttentionSet
from services.table.ports import NoScheduler
from services.table.recovery import RecoverySweep
from tests.fixtures.table_ports import InProcessDealer, NullLedger, poker_move

GRACE_S = 5.0
VOID_AFTER_S = 30.0


class Clock:
    """Wall-clock milliseconds, moved by the test; the store reads it in seconds."""

    def __init__(self) -> None:
        self.ms = 1_700_000_000_000

    def __call__(self) -> int:
        return self.ms

    def seconds(self) -> float:
        return self.ms / 1000


class FlakyDealer(InProcessDealer):
    def __init__(self) -> None:
        super().__init__()
        self.down = False

    def deal(
        self,
        shuffle_id: str,
        count: int,
        step: str,
        purpose: DealPurpose,
        burn: int = 0,
        position: int | None = None,
    ) -> tuple[Card, ...]:
        if self.down:
            raise errors.Unavailable("dealer UNAVAILABLE: connection refused")
        return super().deal(shuffle_id, count, step, purpose, burn, position)


@dataclass
class Scheduler(NoScheduler):
    down: bool = False
    timeouts: list[tuple[str, int, int, int]] = field(default_factory=list)

    def schedule_timeout(
        self,
        table_id: str,
        hand: int,
        action_number: int,
        deadline_unix_ms: int,
        *,
        only_if_lost: bool = False,
        swept: bool = False,
    ) -> None:
        if self.down:
            raise ConnectionError("broker unreachable")  # what kombu or redis-py raise
        self.timeouts.append((table_id, hand, action_number, deadline_unix_ms))

    def schedule_timeouts(
        self, table_id: str, timeouts: Sequence[tuple[int, int, int]], *, swept: bool = False
    ) -> None:
        if self.down:
            raise ConnectionError("broker unreachable")
        self.timeouts += [(table_id, *timeout) for timeout in timeouts]


@dataclass
class World:
    clock: Clock
    store: InMemoryEventStore
    dealer: FlakyDealer
    scheduler: Scheduler
    attention: InMemoryAttentionSet
    app: TableApplication

    def instance(self) -> TableApplication:
        """A new table-service instance (nothing in memory) on the same store and set."""
        return new_app(self.store, self.dealer, self.scheduler, self.attention, self.clock)

    def events(self, table_id: str = "t1") -> list[object]:
        return [codec.from_message(r.message) for r in self.store.read(table_stream(table_id))]

    def sweep(self, app: TableApplication | None = None) -> int:
        return RecoverySweep(app or self.app).run_once().recovered


def new_app(
    store: InMemoryEventStore,
    dealer: FlakyDealer,
    scheduler: Scheduler,
    attention: InMemoryAttentionSet,
    clock: Clock,
) -> TableApplication:
    return TableApplication(
        store,
        dealer,
        NullLedger(),
        LibraryRanker(),
        scheduler,
        clock=clock,
        void_after_s=VOID_AFTER_S,
        retry_interval_s=3600,  # the in-memory retrier stays out of these tests
        attention=attention,
        recovery_grace_s=GRACE_S,
    )


@pytest.fixture
def world() -> World:
    clock = Clock()
    store = InMemoryEventStore(codec.registry(), clock=clock.seconds)
    dealer, scheduler, attention = FlakyDealer(), Scheduler(), InMemoryAttentionSet()
    app = new_app(store, dealer, scheduler, attention, clock)
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)
    app.create_table(TableSpec(config, table_id="t1", action_time_ms=20_000), "house", "create")
    for seat, player in enumerate(("alice", "bob")):
        app.join("t1", player, seat, 200, "", f"join-{player}")
    return World(clock, store, dealer, scheduler, attention, app)


def to_the_flop_with_the_dealer_down(world: World) -> None:
    """alice calls, the dealer goes down, bob checks: recorded, the flop not dealt."""
    world.app.act("t1", "alice", poker_move(0, "call", hand=1), "call", None)
    world.dealer.down = True
    world.app.act("t1", "bob", poker_move(1, "check", hand=1), "check", None)
    hand = world.app.load("t1").state.engine.hand
    assert hand is not None and hand.board == () and hand.to_act is None


def test_a_command_marks_its_table_once_per_half_grace(world: World) -> None:
    marked = world.attention.marked()["t1"]
    world.clock.ms += int(GRACE_S * 1000 / 2) - 1
    world.app.act("t1", "alice", poker_move(0, "call", hand=1), "call", None)
    assert world.attention.marked()["t1"] == marked  # this instance marked it just now


def test_the_sweep_leaves_a_table_marked_within_the_grace(world: World) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.dealer.down = False
    world.clock.ms += int(GRACE_S * 1000) - 1
    assert world.sweep(world.instance()) == 0
    assert world.app.load("t1").state.engine.hand.board == ()


def test_any_instance_finishes_a_stalled_table_after_the_grace_and_unmarks_it(
    world: World,
) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.dealer.down = False
    world.clock.ms += int(GRACE_S * 1000)
    other = world.instance()  # e.g. the instance that replaced a killed one
    assert world.sweep(other) == 1
    hand = other.load("t1").state.engine.hand
    assert hand is not None and len(hand.board) == 3 and hand.to_act is not None
    assert "t1" not in world.attention.marked()
    # The new decision's timeout was sent by the instance that dealt.
    decision = other.load("t1").shell.decision
    assert decision is not None
    assert world.scheduler.timeouts[-1][:3] == ("t1", 1, decision.action_number)


def test_a_table_still_stuck_stays_marked_and_is_tried_again_a_grace_later(world: World) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.clock.ms += int(GRACE_S * 1000)
    report = RecoverySweep(world.app).run_once()
    assert report.failed == 1 and report.recovered == 0
    assert "t1" in world.attention.marked()
    assert world.sweep() == 0  # claimed: not due again before another grace
    world.dealer.down = False
    world.clock.ms += int(GRACE_S * 1000)
    assert world.sweep() == 1


def test_two_sweeps_never_take_one_table_at_once(world: World) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.clock.ms += int(GRACE_S * 1000)
    (table_id, mark), *_ = world.attention.due(world.clock(), 10)
    assert world.attention.claim(table_id, mark, world.clock())
    assert not world.attention.claim(table_id, mark, world.clock())


def test_a_new_instance_voids_a_hand_stuck_past_the_limit_since_its_last_event(
    world: World,
) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.clock.ms += int(VOID_AFTER_S * 1000)  # the old instance (and its timer) is gone
    other = world.instance()
    assert world.sweep(other) == 0  # voided; hand 2 starts, and waits for its cards in turn
    voided = [e for e in world.events() if isinstance(e, ev.HandVoided)]
    assert len(voided) == 1 and voided[0].hand == 1
    assert sorted(voided[0].refunds) == [(0, 2), (1, 2)]  # both blinds' worth back
    hand = other.load("t1").state.engine.hand
    assert hand is not None and hand.number == 2


def test_a_hand_stuck_less_than_the_limit_is_not_voided(world: World) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.clock.ms += int(VOID_AFTER_S * 1000) - 1
    world.sweep(world.instance())
    assert not [e for e in world.events() if isinstance(e, ev.HandVoided)]


def test_an_act_whose_timeout_cannot_be_scheduled_is_recorded_and_recovery_schedules_it(
    world: World,
) -> None:
    world.scheduler.down = True
    version = world.app.act("t1", "alice", poker_move(0, "call", hand=1), "call", None)
    table = world.app.load("t1")
    assert table.version == version and table.shell.decision is not None
    assert table.shell.decision.seat == 1
    world.scheduler.down = False
    assert world.app.recover("t1")
    decision = table.shell.decision
    assert world.scheduler.timeouts[-1] == (
        "t1",
        decision.hand,
        decision.action_number,
        decision.deadline_unix_ms,
    )


def test_the_first_load_of_a_stalled_table_hands_it_to_the_retrier(world: World) -> None:
    to_the_flop_with_the_dealer_down(world)
    world.dealer.down = False
    other = world.instance()
    retried: list[str] = []
    other.tables.on_unfinished = retried.append
    other.load("t1")
    other.load("t1")
    assert retried == ["t1"]


def test_due_lists_the_oldest_marks_first_up_to_the_limit() -> None:
    attention = InMemoryAttentionSet()
    for table_id, at in (("b", 20), ("a", 10), ("c", 30)):
        attention.mark(table_id, at)
    assert attention.due(25, 10) == [("a", 10), ("b", 20)]
    assert attention.due(100, 1) == [("a", 10)]
    assert attention.clear("a", 11) is False and attention.clear("a", 10) is True
    marks: Sequence[tuple[str, int]] = attention.due(100, 10)
    assert [t for t, _ in marks] == ["b", "c"]
