"""An idle table's announced shuffles: withdrawn by the recovery sweep once the table has
waited between rounds for the idle limit (counted from its last event), not before, and never
from a state a command has since moved on (a player sitting back in at that moment keeps the
hand's shuffle). No servers: the in-memory store, the clock injected."""

from __future__ import annotations

import pytest

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared.eventstore import InMemoryEventStore
from services.table import codec
from services.table.application import TableApplication, TableSpec, table_stream
from services.table.attention import InMemoryAttentionSet
from services.table.ports import NoScheduler
from services.table.recovery import RecoverySweep
from tests.fixtures.table_ports import InProcessDealer, NullLedger, poker_move
from tests.unit.table.test_recovery import Clock

GRACE_S = 5.0
IDLE_S = 60.0


class Idle:
    def __init__(self) -> None:
        self.clock = Clock()
        self.store = InMemoryEventStore(codec.registry(), clock=self.clock.seconds)
        self.attention = InMemoryAttentionSet()
        self.app = TableApplication(
            self.store,
            InProcessDealer(),
            NullLedger(),
            LibraryRanker(),
            NoScheduler(),
            clock=self.clock,
            retry_interval_s=3600,
            attention=self.attention,
            recovery_grace_s=GRACE_S,
            idle_shuffles_s=IDLE_S,
        )

    def events(self) -> list[object]:
        return [r.message for r in self.store.read(table_stream("t1"))]

    def withdrawn(self) -> list[str]:
        return [e.shuffle_id for e in self.events() if isinstance(e, events_pb2.ShuffleWithdrawn)]

    def sweep(self) -> None:
        RecoverySweep(self.app).run_once()

    def sit_in_bob(self) -> None:
        self.app.seat_command("t1", "bob", "in", lambda seat: c.SitIn(seat))


@pytest.fixture
def idle() -> Idle:
    """Hand 1 played with bob sitting out during it: the table then waits for players with
    hands 2 and 3 announced."""
    world = Idle()
    app = world.app
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)
    app.create_table(TableSpec(config, table_id="t1"), "house", "create")
    for seat, player in enumerate(("alice", "bob")):
        app.join("t1", player, seat, 200, "", f"join-{player}")
    app.seat_command("t1", "bob", "out", lambda seat: c.SitOut(seat))
    app.act("t1", "alice", poker_move(0, "fold", hand=1), "fold", None)
    table = app.load("t1")
    assert table.game.rounds(table.state).current is None
    assert {u.round for u in table.shell.upcoming} == {2, 3}
    return world


def test_the_sweep_withdraws_an_idle_tables_shuffles_once_the_idle_limit_is_up(
    idle: Idle,
) -> None:
    last = idle.store.read(table_stream("t1"))[-1].recorded_at_ms
    idle.clock.ms += int(GRACE_S * 1000)
    idle.sweep()
    assert idle.withdrawn() == []  # not idle long enough yet: marked for when it will be
    assert idle.attention.marked()["t1"] == last + int((IDLE_S - GRACE_S) * 1000)
    idle.clock.ms = last + int(IDLE_S * 1000)
    idle.sweep()
    assert sorted(idle.withdrawn()) == ["t1.hand-2", "t1.hand-3"]
    unused = [e for e in idle.events() if isinstance(e, events_pb2.ShuffleRevealed) and e.unused]
    assert sorted(e.shuffle_id for e in unused) == ["t1.hand-2", "t1.hand-3"]
    assert idle.app.load("t1").shell.upcoming == ()
    assert "t1" not in idle.attention.marked()  # nothing more to look at
    idle.sit_in_bob()  # hand 2 comes: announced afresh, dealt from the fresh shuffle
    committed = [
        e.shuffle_id
        for e in idle.events()
        if isinstance(e, events_pb2.ShuffleCommitted) and e.hand == 2
    ]
    assert committed == ["t1.hand-2_r2"]


def test_a_player_sitting_in_as_the_table_is_judged_idle_keeps_the_hands_shuffle(
    idle: Idle,
) -> None:
    stale = idle.app.load("t1")  # what the sweep read: idle, waiting for players
    idle.clock.ms += int(IDLE_S * 1000) + 1
    idle.sit_in_bob()  # lands first: hand 2 starts from its announced shuffle
    idle.app.retrier._idle_shuffles(stale)
    assert idle.withdrawn() == []
    table = idle.app.load("t1")
    assert table.game.rounds(table.state).current == 2
    committed = [
        e.shuffle_id
        for e in idle.events()
        if isinstance(e, events_pb2.ShuffleCommitted) and e.hand == 2
    ]
    assert committed == ["t1.hand-2"]
