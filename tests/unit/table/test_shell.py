"""The table service's shell fold: what the views read about time banks and requested bots."""

from __future__ import annotations

from croupier.table.v1 import events_pb2
from services.games.poker import events as ev
from services.table.games import poker
from services.table.shell import ShellState, fold_shell


def _fold(*events: object) -> ShellState:
    state = ShellState()
    for version, event in enumerate(events, start=1):
        state = fold_shell(state, version, event, poker.ADAPTER)
    return state


CREATED = events_pb2.TableCreated(
    table_id="t1",
    action_time_ms=500,
    time_bank_ms=1000,
    bots=[events_pb2.BotSeatSpec(policy="tight", difficulty=0.5)],
)
REQUESTED = events_pb2.ActionRequested(hand=1, seat=0, action_number=3, deadline_unix_ms=5_000)


def test_a_decision_is_marked_extended_once_the_time_bank_moves_its_deadline() -> None:
    state = _fold(CREATED, ev.PlayerSeated(0, "ann", 100), REQUESTED)
    assert state.decision is not None and not state.decision.extended
    state = _fold(
        CREATED,
        ev.PlayerSeated(0, "ann", 100),
        REQUESTED,
        events_pb2.TimeBankExtended(
            hand=1, seat=0, action_number=3, used_ms=300, remaining_ms=700, deadline_unix_ms=5_300
        ),
    )
    assert state.decision is not None
    assert (state.decision.deadline_unix_ms, state.decision.extended) == (5_300, True)
    assert state.banks.of(0) == 700


def test_the_next_decision_starts_with_a_normal_deadline_again() -> None:
    state = _fold(
        CREATED,
        REQUESTED,
        events_pb2.TimeBankExtended(
            hand=1, seat=0, action_number=3, used_ms=300, remaining_ms=700, deadline_unix_ms=5_300
        ),
        events_pb2.ActionRequested(hand=1, seat=1, action_number=4, deadline_unix_ms=6_000),
    )
    assert state.decision is not None and not state.decision.extended


def test_requested_bots_come_from_table_created_and_seated_bots_are_listed_once() -> None:
    bot = "bot-tight-50-t1-s0"
    reserved = events_pb2.BuyInReserved(seat=0, player=bot, amount=200, is_bot=True)
    human = events_pb2.BuyInReserved(seat=1, player="ann", amount=200)
    state = _fold(CREATED, reserved, human, reserved)
    assert state.requested_bots == (("tight", 0.5),)
    assert state.bots_seated() == (bot,)


def test_a_decision_asked_again_under_its_number_is_restarted_in_place() -> None:
    # (a game's restarting deadline, Spit's stall: the same decision at a new `since`)
    def asked(number: int, seat: int, deadline: int, since: int) -> object:
        return events_pb2.ActionRequested(
            hand=1,
            seat=seat,
            action_number=number,
            deadline_unix_ms=deadline,
            game_deadline="1/stall" if number == 2 else "1/slap",
            since=since,
        )

    state = _fold(CREATED, asked(1, 1, 4_000, 0), asked(2, 0, 5_000, 3), asked(2, 0, 7_000, 4))
    assert [(d.action_number, d.deadline_unix_ms, d.since) for d in state.decisions] == [
        (1, 4_000, 0),
        (2, 7_000, 4),
    ]
    state = fold_shell(state, 9, asked(3, 1, 8_000, 0), poker.ADAPTER)
    assert [d.action_number for d in state.decisions] == [1, 2, 3]


def test_the_next_deal_from_a_shuffle_starts_where_the_tables_deals_end() -> None:
    """The position a Deal names at the dealer: the cards the table's events hold from the
    shuffle (burns included), per shuffle, forgotten once the shuffle is revealed."""
    state = _fold(
        CREATED,
        events_pb2.ShuffleDealt(hand=1, shuffle_id="t1.hand-1", position=0, count=4),
        events_pb2.ShuffleDealt(hand=1, shuffle_id="t1.hand-1", position=4, count=4),
        events_pb2.ShuffleDealt(hand=2, shuffle_id="t1.hand-2", position=0, count=4),
    )
    assert state.dealt_from("t1.hand-1") == 8
    assert state.dealt_from("t1.hand-2") == 4
    assert state.dealt_from("t1.hand-3") == 0
    revealed = fold_shell(
        state, 5, events_pb2.ShuffleRevealed(hand=1, shuffle_id="t1.hand-1"), poker.ADAPTER
    )
    assert revealed.dealt == (("t1.hand-2", 4),)
