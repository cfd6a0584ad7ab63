"""Heads-up high card as rules: a round's ante, deal, simultaneous turn and payout, every
request to the outside world in order, and what each viewer sees."""

from __future__ import annotations

from typing import Any

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow, NotYourSeat, UnknownTarget
from services.games.highcard import RULES, HighCardConfig, HighCardState, HighCardView, Turn
from services.games.highcard import events as ev
from services.games.highcard.moves import InRound, LegalMoves
from services.games.highcard.views import HIDDEN
from tests.unit.games.contract_driver import Run, World, step

CONFIG = HighCardConfig(ante=5, min_buy_in=10, max_buy_in=100)


def test_the_rules_object_is_a_game_rules() -> None:
    rules: c.GameRules[HighCardConfig, HighCardState, ev.Event, HighCardView, LegalMoves] = RULES
    assert rules.name == "high-card"


def pinned(*cards: str) -> World:
    """A dealer whose every shuffle puts `cards` on top (in dealing order)."""

    def shuffle(round_: int, name: str, deck: c.DeckSpec) -> list[str]:
        return list(cards)

    return World(shuffle)


def seated(stacks: tuple[int, int] = (50, 50), config: HighCardConfig = CONFIG) -> Run:
    run = Run(RULES.initial_state(config))
    for seat, stack in enumerate(stacks):
        step(RULES, run, c.SitDown(seat, f"p{seat}", stack))
    return run


def deal(run: Run, world: World) -> None:
    """Answer chance until both players are to turn their cards."""
    while not RULES.to_act(run.state):
        request = RULES.pending_chance(run.state)
        assert request is not None, "the round should deal"
        run.requests.append(request)
        step(RULES, run, world.answer(request))


def test_a_round_antes_commits_the_shuffle_then_deals_one_card_each() -> None:
    run = seated()
    deal(run, pinned("Kd", "7s"))
    assert run.requests == [
        c.StartRound(1),
        c.OpenShuffle(1, "deck", c.DeckSpec()),
        c.DrawCards(1, "deck", 2, purpose="hole", recipient="seat 0, seat 1"),
    ]
    assert [type(e) for e in run.events[2:]] == [ev.RoundStarted, ev.DeckCommitted, ev.CardsDealt]
    assert [s.stack for s in RULES.seats(run.state)] == [45, 45]
    assert RULES.to_act(run.state) == frozenset({0, 1})  # both turn at once


def test_the_higher_card_takes_the_pot_whoever_turns_first() -> None:
    run = seated()
    deal(run, pinned("Kd", "As"))
    step(RULES, run, c.Move(1, Turn(), by="p1"))
    assert RULES.to_act(run.state) == frozenset({0})
    events = step(RULES, run, c.Move(0, Turn(), by="p0"))
    assert events == [
        ev.CardTurned(1, 0, "Kd"),
        ev.RoundWon(1, winners=(1,), shares=((1, 10),), stacks=((0, 45), (1, 55))),
    ]
    assert RULES.pending_chance(run.state) == c.CloseShuffle(1, "deck")


def test_equal_ranks_split_the_pot() -> None:
    run = seated()
    deal(run, pinned("9h", "9c"))
    step(RULES, run, c.Move(0, Turn()))
    (won,) = [e for e in step(RULES, run, c.Move(1, Turn())) if isinstance(e, ev.RoundWon)]
    assert won.winners == (0, 1) and won.shares == ((0, 5), (1, 5))
    assert [s.stack for s in RULES.seats(run.state)] == [50, 50]


def test_an_ace_is_high_and_a_deuce_low() -> None:
    run = seated()
    deal(run, pinned("2s", "Ac"))
    step(RULES, run, c.Move(0, Turn()))
    (won,) = [e for e in step(RULES, run, c.Move(1, Turn())) if isinstance(e, ev.RoundWon)]
    assert won.winners == (1,)


def test_each_seat_sees_only_its_own_face_down_card() -> None:
    run = seated()
    deal(run, pinned("Kd", "7s"))

    def cards(viewer: int | None) -> list[str | None]:
        return [s.card for s in RULES.view_for(run.state, viewer).seats]

    assert cards(0) == ["Kd", HIDDEN]
    assert cards(1) == [HIDDEN, "7s"]
    assert cards(None) == [HIDDEN, HIDDEN]
    dealt = next(e for e in run.events if isinstance(e, ev.CardsDealt))
    assert RULES.redact(dealt, 1) == ev.CardsDealt(1, (HIDDEN, "7s"))
    assert RULES.redact(dealt, None) == ev.CardsDealt(1, (HIDDEN, HIDDEN))
    step(RULES, run, c.Move(0, Turn()))
    assert cards(None) == ["Kd", HIDDEN]  # a turned card is everyone's


def test_a_seat_that_does_not_turn_in_time_has_its_card_turned_for_it() -> None:
    run = seated()
    deal(run, pinned("Kd", "7s"))
    assert list(RULES.deadlines(run.state)) == [
        c.Deadline(0, "1/turn"),
        c.Deadline(1, "1/turn"),
    ]
    step(RULES, run, c.Move(0, Turn()))
    assert list(RULES.deadlines(run.state)) == [c.Deadline(1, "1/turn")]
    assert RULES.decide(run.state, c.TimeOut(0, "1/turn")) == []  # turned already
    assert RULES.decide(run.state, c.TimeOut(1, "2/turn")) == []  # another round's timer
    events = step(RULES, run, c.TimeOut(1, "1/turn"))
    assert events[0] == ev.CardTurned(1, 1, "7s", timed_out=True)
    assert isinstance(events[1], ev.RoundWon)


def test_moves_are_checked_before_anything_changes() -> None:
    run = seated()
    with pytest.raises(NotAllowedNow, match="no round is in play"):
        RULES.decide(run.state, c.Move(0, Turn()))
    deal(run, pinned("Kd", "7s"))
    with pytest.raises(InvalidAction, match="the high-card move is Turn, not str"):
        RULES.decide(run.state, c.Move(0, "turn"))
    with pytest.raises(NotYourSeat, match="seat 0 belongs to p0, not p1"):
        RULES.decide(run.state, c.Move(0, Turn(), by="p1"))
    with pytest.raises(UnknownTarget, match="seat 2 does not exist"):
        RULES.decide(run.state, c.Move(2, Turn()))
    with pytest.raises(NotAllowedNow, match="round 3 is not in play: round 1 is in play"):
        RULES.decide(run.state, c.Move(0, Turn(), precondition=InRound(3)))
    step(RULES, run, c.Move(0, Turn(), precondition=InRound(1)))
    with pytest.raises(NotAllowedNow, match="seat 0's card is face up already"):
        RULES.decide(run.state, c.Move(0, Turn()))


def test_answers_not_asked_for_are_refused_and_repeats_change_nothing() -> None:
    run = seated()
    with pytest.raises(NotAllowedNow, match="did not ask for CardsDrawn: it waits for StartRound"):
        RULES.decide(run.state, c.CardsDrawn(1, "deck", ("Kd", "7s")))
    step(RULES, run, c.RoundStarts(1))
    assert RULES.decide(run.state, c.RoundStarts(1)) == []
    step(RULES, run, c.ShuffleOpened(1, "deck", "s1", "c1"))
    assert RULES.decide(run.state, c.ShuffleOpened(1, "deck", "s1", "c1")) == []
    with pytest.raises(InvalidAction, match="cannot deal Kd twice"):
        RULES.decide(run.state, c.CardsDrawn(1, "deck", ("Kd", "Kd")))
    with pytest.raises(InvalidAction, match="'Zz' is not a card"):
        RULES.decide(run.state, c.CardsDrawn(1, "deck", ("Kd", "Zz")))
    with pytest.raises(InvalidAction, match="high card does not take Evaluated"):
        RULES.decide(run.state, c.Evaluated(()))


def test_a_round_waits_for_two_players_who_can_ante() -> None:
    run = seated((50, 3), HighCardConfig(ante=5, max_buy_in=100))
    assert RULES.pending_chance(run.state) is None  # seat 1 cannot cover the ante of 5
    step(RULES, run, c.AddChips(1, 7, by="p1"))
    assert RULES.pending_chance(run.state) == c.StartRound(1)
    step(RULES, run, c.SitOut(0, by="p0"))
    assert RULES.pending_chance(run.state) is None
    step(RULES, run, c.SitIn(0, by="p0"))
    assert RULES.pending_chance(run.state) == c.StartRound(1)


def test_a_player_who_leaves_mid_round_leaves_with_the_result() -> None:
    run = seated()
    deal(run, pinned("Kd", "7s"))
    assert step(RULES, run, c.Leave(0, by="p0")) == [ev.LeaveRequested(0)]
    with pytest.raises(NotAllowedNow, match="add chips between rounds"):
        RULES.decide(run.state, c.AddChips(1, 1))
    step(RULES, run, c.Move(1, Turn()))
    events = step(RULES, run, c.Move(0, Turn()))
    assert events[-1] == ev.PlayerLeft(0, "p0", 55)
    assert RULES.cash_out(events[-1]) == c.CashOut(0, "p0", 55)
    assert RULES.cash_out(events[-2]) is None
    # the finished round's shuffle is revealed; no new round starts with one player
    assert RULES.pending_chance(run.state) == c.CloseShuffle(1, "deck")
    step(RULES, run, c.ShuffleClosed(1, "deck", "{}"))
    assert RULES.pending_chance(run.state) is None


def test_a_voided_round_gives_each_ante_back() -> None:
    run = seated()
    step(RULES, run, c.RoundStarts(1))
    events = step(RULES, run, c.Void("dealer unavailable"))
    assert events == [ev.RoundVoided(1, "dealer unavailable")]
    assert [s.stack for s in RULES.seats(run.state)] == [50, 50]
    assert RULES.decide(run.state, c.Void("again")) == []  # nothing in play: nothing owed


def test_seating_is_checked() -> None:
    run = seated()
    with pytest.raises(NotAllowedNow, match="seat 0 is taken"):
        RULES.decide(run.state, c.SitDown(0, "p9", 20))
    state: Any = RULES.initial_state(CONFIG)
    with pytest.raises(InvalidAction, match="buy-in must be between 10 and 100, not 5"):
        RULES.decide(state, c.SitDown(0, "p0", 5))
    with pytest.raises(UnknownTarget, match="seat 2 does not exist"):
        RULES.decide(state, c.SitDown(2, "p0", 20))
    with pytest.raises(InvalidAction, match="the ante must be positive"):
        HighCardConfig(ante=0)
