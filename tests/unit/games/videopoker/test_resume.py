"""Retries, restarts and a second shell: an answer counts once, and a round interrupted
between deal and draw resumes with the same cards."""

from __future__ import annotations

import pytest

from services.games import contract as c
from services.games.errors import RuleViolation
from services.games.videopoker import RULES, Deal, Hold
from services.games.videopoker import events as ev
from services.games.videopoker.reducer import apply_all
from tests.unit.games.videopoker.machine import Machine


def test_every_answer_repeated_after_it_was_recorded_changes_nothing() -> None:
    machine = Machine()
    machine.sit()
    machine.do(c.Move(0, Deal(5, 10, "deuces-wild")))
    repeated = 0
    for stage in ("deal", "draw"):
        while (request := RULES.pending_chance(machine.state)) is not None:
            answer = machine.answer(request)
            assert machine.do(answer)
            assert list(RULES.decide(machine.state, answer)) == []
            repeated += 1
        if stage == "deal":
            machine.do(c.Move(0, Hold(1, (1, 3))))
    assert machine.state.round is None and repeated >= 5 + 5 + 5 + 1
    assert list(RULES.decide(machine.state, c.TransferDone("1/bet"))) == []


def test_a_round_interrupted_between_deal_and_draw_resumes_with_the_same_cards() -> None:
    machine = Machine(seed=b"resume")
    machine.sit()
    machine.deal(10, 10, "double-double-bonus-9-6")
    live = machine.state
    replayed = apply_all(RULES.initial_state(machine.config), machine.events)
    assert replayed == live
    assert RULES.view_for(replayed, 0) == RULES.view_for(live, 0)
    assert RULES.pending_chance(replayed) is None and RULES.to_act(replayed) == {0}
    # The shell restarts: the same shuffles (their ids derive from the round and name) are
    # found again, and the hold draws from them.
    machine.state = replayed
    machine.hold(0, 4)
    assert machine.state.last is not None and machine.state.last.dealt == live.round.dealt  # type: ignore[union-attr]


def test_a_restart_in_the_middle_of_the_draw_asks_only_for_what_is_missing() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 1)
    machine.do(c.Move(0, Hold(1, (0,))))
    for _ in range(2):  # line 1, then line 2
        machine.do(machine.answer(RULES.pending_chance(machine.state)))  # type: ignore[arg-type]
    replayed = apply_all(RULES.initial_state(machine.config), machine.events)
    request = RULES.pending_chance(replayed)
    assert isinstance(request, c.DrawCards) and request.name == "line-3" and request.count == 4


def test_answers_nobody_asked_for_are_refused() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 1)
    machine.do(c.Move(0, Hold(1, ())))
    state = machine.state
    for answer in (
        c.CardsDrawn(1, "line-2", ("2c", "3c", "4c", "5c", "6c")),  # line 1 is next
        c.TransferDone("1/win"),
        c.ShuffleOpened(1, "line-1", "another-id", "00"),
        c.CardsDrawn(2, "line-1", ("2c",)),
    ):
        with pytest.raises(RuleViolation):
            RULES.decide(state, answer)


def test_drawn_cards_must_come_from_the_lines_deck() -> None:
    machine = Machine()
    machine.sit()
    machine.deal(3, 1)
    machine.do(c.Move(0, Hold(1, (0, 1, 2, 3))))
    dealt = machine.state.round.dealt  # type: ignore[union-attr]
    with pytest.raises(RuleViolation, match="is not a card of shuffle line-1"):
        RULES.decide(machine.state, c.CardsDrawn(1, "line-1", (dealt[4],)))
    with pytest.raises(RuleViolation, match="asked for 1 card"):
        RULES.decide(machine.state, c.CardsDrawn(1, "line-1", ()))


def test_a_void_before_the_deal_refunds_the_bet_and_closes_what_was_opened() -> None:
    machine = Machine()
    machine.sit(100)
    machine.do(c.Move(0, Deal(3, 5, "jacks-9-6")))
    machine.do(machine.answer(RULES.pending_chance(machine.state)))  # type: ignore[arg-type]
    machine.do(machine.answer(RULES.pending_chance(machine.state)))  # type: ignore[arg-type]
    machine.do(c.Void("the dealer stayed down"))
    machine.run()
    assert machine.moved == {"1/bet": 15, "1/refund": 15}
    assert [e.name for e in machine.events if isinstance(e, ev.DeckClosed)] == ["deal"]
    assert machine.state.round is None and machine.state.seat.stack == 100  # type: ignore[union-attr]
    assert machine.escrow == 100 and machine.house == 0
