"""Poker through the table contract (`game_rules.RULES`) plays exactly as the engine plays on
its own, and asks the outside world for everything the table shell used to do by itself:
the hand's shuffle (and the next one) before the hand, the cards, reshuffles and ranks during
it, the rake and the reveal after it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.games import contract as c
from services.games.errors import InvalidAction, NotAllowedNow
from services.games.poker import TEXAS_HOLDEM, Action, LegalActions, TableConfig, View
from services.games.poker import events as ev
from services.games.poker.catalog import GAMES, SIX_CARD_OPEN_DRAW
from services.games.poker.commands import Act, TimeOut
from services.games.poker.events import Event
from services.games.poker.game_rules import RULES
from services.games.poker.moves import InHand, PokerMove, PostBigBlind
from services.games.poker.playout import play_hand
from services.games.poker.table import PokerTable
from services.games.reference_ranking import ReferenceRanker
from tests.unit.games.contract_driver import Run, World, play, replay, seeded_shuffler, step
from tests.unit.games.poker.support import seated_table
from tests.unit.games.poker.test_simulation import policy_with_timeouts, random_config

PROCESS = (ev.DeckCommitted, ev.DeckRevealed, ev.RakeSettled)


def test_the_rules_object_is_a_game_rules() -> None:
    rules: c.GameRules[TableConfig, PokerTable, Event, View, LegalActions] = RULES
    assert rules.name == "poker"


def _seated(config: TableConfig, stacks: list[int]) -> Run:
    run = Run(RULES.initial_state(config))
    for seat, stack in enumerate(stacks):
        step(RULES, run, c.SitDown(seat, f"p{seat}", stack))
    return run


def _as_command(state: PokerTable, choice: Act | TimeOut) -> c.Command:
    """An engine decision as the contract's command (a Move, or a TimeOut on its deadline)."""
    if isinstance(choice, TimeOut):
        (deadline,) = RULES.deadlines(state)
        return c.TimeOut(choice.seat, deadline.id)
    move = PokerMove(choice.action, choice.amount, choice.cards)
    return c.Move(choice.seat, move, by=f"p{choice.seat}")


class _WorldStub:
    """The native playout's stub over the same in-memory dealer the contract run uses."""

    def __init__(self, world: World, hand: int) -> None:
        self.world, self.hand = world, hand
        world.open(hand, "deck")

    def __iter__(self) -> _WorldStub:
        return self

    def __next__(self) -> str:
        return self.world.draw(self.hand, "deck", 1)[0]

    def put_back(self, cards: tuple[str, ...]) -> None:
        self.world.put_back(self.hand, "deck", cards)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("table", range(3))
def test_play_through_the_contract_is_the_engines_own_play(game: str, table: int) -> None:
    rng = random.Random(f"contract/{game}/{table}")
    config = random_config(game, rng)
    stacks = [rng.randint(20, 300) for _ in range(config.seats)]
    hands = 12
    # The engine on its own (the shell's old path): play_hand with the same dealer.
    native_world = World(seeded_shuffler(f"{game}/{table}"))
    native_policy = policy_with_timeouts(random.Random(f"policy/{game}/{table}"))
    state, _ = seated_table(config, stacks)
    native: list[Event] = []
    for hand in range(1, hands + 1):
        if len([s for s in state.seats if s is not None and s.stack > 0]) < 2:
            break
        result = play_hand(state, native_policy, _WorldStub(native_world, hand), ReferenceRanker())
        native += result.events
        state = result.state
    # The same table through the contract.
    world = World(seeded_shuffler(f"{game}/{table}"))
    policy = policy_with_timeouts(random.Random(f"policy/{game}/{table}"))
    run = _seated(config, stacks)

    def choose(table_state: Any, seat: int) -> c.Command:
        legal = RULES.legal_moves(table_state, seat)
        return _as_command(table_state, policy(table_state.engine, legal))

    seating = run.events
    run = play(RULES, run.state, world, choose, rounds=hands)
    assert [e for e in run.events if not isinstance(e, PROCESS)] == native
    assert run.state.engine == state
    assert replay(RULES, config, seating + run.events) == run.state


def _check_or_call(state: Any, seat: int) -> c.Command:
    legal = RULES.legal_moves(state, seat)
    for action in (Action.CHECK, Action.CALL, Action.SHOW):
        if legal.allows(action):
            return c.Move(seat, PokerMove(action))
    raise AssertionError(legal)


def test_a_hand_opens_its_shuffle_and_the_next_one_before_it_starts() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=2), [100, 100])
    world = World(seeded_shuffler("order"))
    run = play(RULES, run.state, world, _check_or_call, rounds=2)
    kinds = [(type(r).__name__, getattr(r, "round", None)) for r in run.requests]
    assert kinds[:3] == [("OpenShuffle", 1), ("OpenShuffle", 2), ("StartRound", 1)]
    assert run.requests[3] == c.DrawCards(1, "deck", 4, purpose="hole", recipient="seats 1, 0")
    boards = [r for r in run.requests if isinstance(r, c.DrawCards) and r.purpose == "board"]
    assert [(r.count, r.burn, r.recipient) for r in boards[:3]] == [
        (3, 1, "board"),
        (1, 1, "board"),
        (1, 1, "board"),
    ]
    after = kinds[kinds.index(("Evaluate", None)) + 1 :]
    # No rake at this table: the shuffle is revealed, the hand after next announced, then
    # hand 2 starts on the shuffle announced during hand 1.
    assert after[:3] == [("CloseShuffle", 1), ("OpenShuffle", 3), ("StartRound", 2)]
    committed = [e for e in run.events if isinstance(e, ev.DeckCommitted)]
    # (`play` stops at the third hand's StartRound: its shuffle and the fourth's are open)
    assert [(e.hand, e.shuffle_id) for e in committed] == [(n, f"deck@{n}") for n in (1, 2, 3, 4)]
    assert [e.hand for e in run.events if isinstance(e, ev.DeckRevealed)] == [1, 2]


def _rake_table() -> Run:
    config = TableConfig(
        game=TEXAS_HOLDEM, seats=3, small_blind=10, big_blind=20, rake_basis_points=500
    )
    return _seated(config, [200, 200, 200])


def test_the_rake_reaches_the_house_before_the_shuffle_is_revealed() -> None:
    world = World(seeded_shuffler("rake"))
    run = play(RULES, _rake_table().state, world, _check_or_call, rounds=1)
    raked = [e.rake for e in run.events if isinstance(e, ev.PotAwarded)]
    assert raked == [3]  # 5% of the 60 chips of a checked-down hand, hand 1
    ended = next(i for i, r in enumerate(run.requests) if isinstance(r, c.Evaluate))
    assert run.requests[ended + 1 : ended + 3] == [
        c.Transfer("1/rake", c.Party.ESCROW, c.Party.HOUSE, 3),
        c.CloseShuffle(1, "deck"),
    ]
    assert world.house == 3
    settled = [e for e in run.events if isinstance(e, ev.RakeSettled)]
    assert settled == [ev.RakeSettled(1, 3, "1/rake")]
    assert RULES.decide(run.state, c.TransferDone("1/rake")) == []  # a repeat


def test_a_hand_won_before_the_flop_takes_no_rake_and_moves_no_chips() -> None:
    def fold(state: Any, seat: int) -> c.Command:
        legal = RULES.legal_moves(state, seat)
        action = Action.FOLD if legal.allows(Action.FOLD) else Action.CHECK
        return c.Move(seat, PokerMove(action))

    world = World(seeded_shuffler("no-drop"))
    run = play(RULES, _rake_table().state, world, fold, rounds=1)
    assert not [r for r in run.requests if isinstance(r, c.Transfer)]
    assert [e.rake for e in run.events if isinstance(e, ev.PotAwarded)] == [0]


def test_a_timeout_on_the_current_deadline_is_the_engines_default_and_a_stale_one_nothing() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=2), [100, 100])
    world = World(seeded_shuffler("timeouts"))
    while not RULES.to_act(run.state):
        request = RULES.pending_chance(run.state)
        assert request is not None
        step(RULES, run, world.answer(request))
    (deadline,) = RULES.deadlines(run.state)
    assert deadline == c.Deadline(deadline.seat, "1/1", None, time_bank=True)
    assert RULES.decide(run.state, c.TimeOut(deadline.seat, "1/2")) == []
    assert RULES.decide(run.state, c.TimeOut(1 - deadline.seat, "1/1")) == []
    events = step(RULES, run, c.TimeOut(deadline.seat, "1/1"))
    assert [type(e) for e in events][:2] == [ev.ActionTaken, ev.TimedOut]
    assert events[0].action == Action.FOLD
    assert RULES.decide(run.state, c.TimeOut(deadline.seat, "1/1")) == []  # repeated


def test_deadlines_name_each_decision_once() -> None:
    run = _seated(TableConfig(game=GAMES["six-card-open-draw"], seats=3, ante=1), [80] * 3)
    world = World(seeded_shuffler("names"))
    seen: list[str] = []
    for _ in range(2000):
        request = RULES.pending_chance(run.state)
        if request is not None:
            if isinstance(request, c.StartRound) and request.round > 3:
                break
            step(RULES, run, world.answer(request))
            continue
        (deadline,) = RULES.deadlines(run.state)
        if not seen or seen[-1] != deadline.id:
            seen.append(deadline.id)
        step(RULES, run, _check_or_call_or_discard(run.state, deadline.seat))
    assert len(seen) == len(set(seen)) > 10
    assert all(name.split("/")[0] in {"1", "2", "3"} for name in seen)


def _check_or_call_or_discard(state: Any, seat: int) -> c.Command:
    legal = RULES.legal_moves(state, seat)
    if legal.allows(Action.OPEN_DISCARD):
        return c.Move(seat, PokerMove(Action.OPEN_DISCARD, cards=legal.discardable[:1]))
    if legal.allows(Action.DISCARD):
        return c.Move(seat, PokerMove(Action.DISCARD))
    return _check_or_call(state, seat)


def test_answers_not_asked_for_are_refused_and_repeats_change_nothing() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=2), [100, 100])
    state = run.state
    with pytest.raises(NotAllowedNow, match=r"waits for OpenShuffle of hand 1"):
        RULES.decide(state, c.RoundStarts(1))
    with pytest.raises(NotAllowedNow, match=r"did not ask for CardsDrawn"):
        RULES.decide(state, c.CardsDrawn(1, "deck", ("As", "Kd")))
    step(RULES, run, c.ShuffleOpened(1, "deck", "s1", "c1"))
    assert RULES.decide(run.state, c.ShuffleOpened(1, "deck", "s1", "c1")) == []
    step(RULES, run, c.ShuffleOpened(2, "deck", "s2", "c2"))
    step(RULES, run, c.RoundStarts(1))
    assert RULES.decide(run.state, c.RoundStarts(1)) == []
    with pytest.raises(InvalidAction, match=r"deal 0 burned card\(s\) then 4"):
        RULES.decide(run.state, c.CardsDrawn(1, "deck", ("As", "Kd", "2c")))
    with pytest.raises(InvalidAction, match=r"already dealt"):
        RULES.decide(run.state, c.CardsDrawn(1, "deck", ("As", "Kd", "2c", "As")))


def test_a_move_is_a_poker_move_for_the_current_hand() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=2), [100, 100])
    world = World(seeded_shuffler("moves"))
    while not RULES.to_act(run.state):
        request = RULES.pending_chance(run.state)
        assert request is not None
        step(RULES, run, world.answer(request))
    (seat,) = RULES.to_act(run.state)
    with pytest.raises(InvalidAction, match=r"a poker move is a PokerMove, not str"):
        RULES.decide(run.state, c.Move(seat, "call"))
    with pytest.raises(InvalidAction, match=r"precondition is InHand, not int"):
        RULES.decide(run.state, c.Move(seat, PokerMove(Action.CALL), precondition=1))
    with pytest.raises(NotAllowedNow, match=r"hand 0 is over"):
        RULES.decide(run.state, c.Move(seat, PokerMove(Action.CALL), precondition=InHand(0)))
    events = RULES.decide(run.state, c.Move(seat, PokerMove(Action.CALL), precondition=InHand(1)))
    assert isinstance(events[0], ev.ActionTaken) and events[0].action == Action.CALL


def test_a_player_who_leaves_takes_their_stack_with_them() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=3), [100, 50, 0][:2])
    events = step(RULES, run, c.Leave(1, by="p1"))
    assert [RULES.cash_out(e) for e in events] == [c.CashOut(1, "p1", 50)]
    assert RULES.cash_out(ev.PlayerLeft(2, "p2", 0)) is None
    assert RULES.cash_out(ev.PlayerSeated(2, "p2", 10)) is None


def test_sit_in_may_post_the_big_blind_at_once() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=3), [100, 100, 100])
    step(RULES, run, c.SitOut(2, by="p2"))
    with pytest.raises(InvalidAction, match=r"sit-in option is PostBigBlind, not str"):
        RULES.decide(run.state, c.SitIn(2, option="post"))
    assert RULES.decide(run.state, c.SitIn(2, by="p2", option=PostBigBlind())) == [
        ev.PlayerSatIn(2, post_big_blind=True)
    ]
    assert RULES.decide(run.state, c.SitIn(2, by="p2")) == [ev.PlayerSatIn(2)]


def test_seats_summarise_every_occupied_seat_for_the_envelope() -> None:
    run = _seated(TableConfig(game=TEXAS_HOLDEM, seats=4), [100, 60])
    step(RULES, run, c.AddChips(1, 20, by="p1"))
    assert list(RULES.seats(run.state)) == [
        c.SeatSummary(0, "p0", 100),
        c.SeatSummary(1, "p1", 80),
    ]
    assert RULES.decide(run.state, c.Void("dealer down")) == []  # no hand: nothing owed


def test_a_draw_game_shuffles_discards_back_through_the_dealer() -> None:
    config = TableConfig(game=SIX_CARD_OPEN_DRAW, seats=7, ante=1)
    run = _seated(config, [500] * 7)
    world = World(seeded_shuffler("reshuffle"))

    def draw_four(state: Any, seat: int) -> c.Command:
        legal = RULES.legal_moves(state, seat)
        if legal.allows(Action.DISCARD):
            cards = legal.discardable[: legal.max_discards]
            return c.Move(seat, PokerMove(Action.DISCARD, cards=cards))
        return _check_or_call_or_discard(state, seat)

    run = play(RULES, run.state, world, draw_four, rounds=1)
    returned = [r for r in run.requests if isinstance(r, c.ReturnCards)]
    assert returned and all(r.round == 1 and r.name == "deck" for r in returned)
    reshuffled = [e for e in run.events if isinstance(e, ev.DiscardsReshuffled)]
    assert [e.cards for e in reshuffled] == [r.cards for r in returned]
