"""An Act that reaches the table before the deadline wins over the timeout of that decision,
even when the timeout takes the table's lock first: the timeout answers "not due" (the worker
asks again a moment later) while the Act is applied; an Act received after the deadline does
not hold the timeout back, and neither does another player's Act.

No servers: the in-memory store of test_step_batches, the dealer and ledger of
tests/fixtures/table_ports, a table clock the test moves by hand."""

from __future__ import annotations

import pytest

from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared import errors
from services.table.application import TableApplication, TableSpec
from services.table.ports import NoScheduler
from tests.fixtures.table_ports import InProcessDealer, NullLedger, poker_move

from .test_step_batches import Store

ACTION_TIME_MS = 10_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(clock: Clock) -> TableApplication:
    app = TableApplication(
        Store(),
        InProcessDealer(),
        NullLedger(),
        LibraryRanker(),
        NoScheduler(),
        clock=clock,
    )
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)
    spec = TableSpec(config, table_id="t1", action_time_ms=ACTION_TIME_MS)
    app.create_table(spec, "house", "create")
    for seat, player in enumerate(("alice", "bob")):
        app.join("t1", player, seat, 200, "", f"join-{player}")
    return app


def decision(app: TableApplication) -> tuple[int, int, int, str]:
    """(hand, action number, deadline, player to act) of the open decision."""
    table = app.load("t1")
    open_decision = table.shell.decision
    assert open_decision is not None
    seat = table.state.engine.seats[open_decision.seat]
    assert seat is not None
    return (
        open_decision.hand,
        open_decision.action_number,
        open_decision.deadline_unix_ms,
        seat.player,
    )


def test_an_act_received_before_the_deadline_holds_the_timeout_back_until_it_is_applied(
    app: TableApplication, clock: Clock
) -> None:
    hand, number, deadline, player = decision(app)
    version = app.load("t1").version
    clock.now = deadline - 10
    with app.receiving_act("t1", player):
        clock.now = deadline + 5  # the timeout's trigger comes while the Act is in flight
        with pytest.raises(errors.FailedPrecondition, match="not due") as refused:
            app.apply_timeout("t1", hand, number)
        assert player in str(refused.value)
        assert app.load("t1").version == version  # nothing changed
    # The Act is applied; the retried timeout then finds the decision made: a no-op.
    engine_hand = app.load("t1").state.engine.hand
    assert engine_hand is not None
    seat = engine_hand.to_act
    assert seat is not None
    app.act("t1", player, poker_move(seat, "call", hand=hand), "call", None)
    applied, _ = app.apply_timeout("t1", hand, number)
    assert not applied


def test_an_act_received_after_the_deadline_does_not_hold_the_timeout_back(
    app: TableApplication, clock: Clock
) -> None:
    hand, number, deadline, player = decision(app)
    clock.now = deadline + 1
    with app.receiving_act("t1", player):
        applied, _ = app.apply_timeout("t1", hand, number)
    assert applied


def test_another_players_act_does_not_hold_the_timeout_back(
    app: TableApplication, clock: Clock
) -> None:
    hand, number, deadline, player = decision(app)
    other = "bob" if player == "alice" else "alice"
    clock.now = deadline - 10
    with app.receiving_act("t1", other):
        clock.now = deadline + 5
        applied, _ = app.apply_timeout("t1", hand, number)
    assert applied
