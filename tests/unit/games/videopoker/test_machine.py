"""The seat, the views and the contract: one player, the house as counterparty."""

from __future__ import annotations

from services.games import contract as c
from services.games.videopoker import RULES, Deal, Hold, LegalMoves, MachineConfig, MachineState
from services.games.videopoker import events as ev
from services.games.videopoker.events import Event
from services.games.videopoker.views import MachineView
from tests.unit.games.videopoker.machine import Machine

RULES_AS_CONTRACT: c.GameRules[MachineConfig, MachineState, Event, MachineView, LegalMoves] = RULES


def test_the_rules_are_the_contracts_game_named_video_poker() -> None:
    assert RULES_AS_CONTRACT.name == "video-poker"
    assert RULES.initial_state(MachineConfig()) == MachineState(MachineConfig())


def test_an_idle_machine_offers_every_choice_the_credits_allow() -> None:
    machine = Machine()
    machine.sit(3)
    moves = RULES.legal_moves(machine.state, 0)
    assert moves.deal and moves.lines == (3, 5, 10) and moves.coins == (1, 2, 3, 4, 5, 10)
    assert moves.credits == 3 and moves.hold_round == 0
    assert RULES.to_act(machine.state) == {0}
    assert RULES.seats(machine.state) == (c.SeatSummary(0, "alice", 3),)


def test_a_player_without_credits_for_the_smallest_bet_is_not_asked_to_act() -> None:
    machine = Machine()
    machine.sit(2)
    assert (
        not RULES.legal_moves(machine.state, 0).deal and RULES.to_act(machine.state) == frozenset()
    )
    machine.do(c.AddChips(0, 1))
    assert RULES.to_act(machine.state) == {0}


def test_the_player_is_asked_to_hold_once_the_line_decks_are_committed() -> None:
    machine = Machine()
    machine.sit()
    number = machine.deal(5, 2)
    assert RULES.legal_moves(machine.state, 0) == LegalMoves(hold_round=number)
    view = RULES.view_for(machine.state, 0)
    assert view.round is not None and view.round.phase == "holding" and len(view.round.cards) == 5
    assert [name for name, _ in view.round.commitments] == [
        "deal",
        *(f"line-{n}" for n in range(1, 6)),
    ]
    machine.hold(2)
    assert RULES.view_for(machine.state, 0).last is not None
    assert RULES.view_for(machine.state, 0).last.phase == "ended"  # type: ignore[union-attr]


def test_a_spectator_sees_the_round_but_gets_no_moves() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 1)
    spectator = RULES.view_for(machine.state, None)
    assert spectator.round == RULES.view_for(machine.state, 0).round
    assert spectator.moves == LegalMoves()


def test_leaving_during_a_round_waits_for_its_end_and_returns_the_credits() -> None:
    machine = Machine()
    machine.sit(50)
    machine.deal(3, 1)
    assert machine.do(c.Leave(0, by="alice")) == [ev.LeaveRequested(0)]
    assert RULES.legal_moves(machine.state, 0).hold_round == 1  # the round still finishes
    machine.hold(0, 1, 2, 3, 4)
    left = machine.events[-1]
    assert isinstance(left, ev.PlayerLeft) and left.stack == machine.escrow
    assert RULES.cash_out(left) == c.CashOut(0, "alice", machine.escrow)
    assert [RULES.cash_out(e) for e in machine.events[:-1]] == [None] * (len(machine.events) - 1)
    assert machine.state.seat is None and RULES.seats(machine.state) == ()


def test_an_idle_player_leaves_at_once() -> None:
    machine = Machine()
    machine.sit(50)
    assert machine.do(c.Leave(0)) == [ev.PlayerLeft(0, "alice", 50)]


def test_the_machine_sets_no_deadlines_so_every_timeout_is_stale() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 1)
    assert RULES.deadlines(machine.state) == ()
    assert list(RULES.decide(machine.state, c.TimeOut(0, "1/hold"))) == []


def test_sitting_out_is_refused_with_what_to_do_instead() -> None:
    import pytest

    from services.games.errors import NotAllowedNow

    machine = Machine()
    machine.sit()
    with pytest.raises(NotAllowedNow, match="leave it instead"):
        RULES.decide(machine.state, c.SitOut(0))


def test_moves_name_the_round_they_hold() -> None:
    machine = Machine()
    machine.sit()
    machine.do(c.Move(0, Deal(3, 1, "jacks-9-6")))
    machine.run()
    machine.do(c.Move(0, Hold(1, (4,))))
    machine.run()
    assert machine.state.last is not None and machine.state.last.hold == (4,)
