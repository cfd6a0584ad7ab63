"""Seeded random play through the contract alone: chips are conserved, no card is dealt twice
in a round, every round's shuffle is committed before its cards and revealed after, views and
redacted events never show a face-down card to anyone else, and a replay of the stream gives
the live state."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.games import contract as c
from services.games.highcard import RULES, HighCardConfig, Turn
from services.games.highcard import events as ev
from services.games.highcard.views import HIDDEN
from tests.unit.games.contract_driver import Run, World, play, replay, seeded_shuffler, step


@pytest.mark.parametrize("seed", range(20))
def test_random_play_keeps_every_invariant(seed: int) -> None:
    rng = random.Random(seed)
    config = HighCardConfig(ante=rng.randint(1, 5), max_buy_in=500)
    stacks = [rng.randint(5, 60), rng.randint(5, 60)]
    run = Run(RULES.initial_state(config))
    for seat, stack in enumerate(stacks):
        step(RULES, run, c.SitDown(seat, f"p{seat}", stack))

    def choose(state: Any, seat: int) -> c.Command:
        movers = sorted(RULES.to_act(state))
        mover = rng.choice(movers)
        if rng.random() < 0.2:
            (deadline,) = [d for d in RULES.deadlines(state) if d.seat == mover]
            return c.TimeOut(mover, deadline.id)
        return c.Move(mover, Turn(), by=f"p{mover}")

    seating = list(run.events)
    world = World(seeded_shuffler(f"highcard/{seed}"))
    run = play(RULES, run.state, world, choose, rounds=40)
    events = seating + run.events
    assert sum(s.stack for s in RULES.seats(run.state)) == sum(stacks)
    assert replay(RULES, config, events) == run.state
    started = [e.round for e in events if isinstance(e, ev.RoundStarted)]
    committed = [e.round for e in events if isinstance(e, ev.DeckCommitted)]
    revealed = [e.round for e in events if isinstance(e, ev.DeckRevealed)]
    assert started == committed and revealed == started[: len(revealed)]
    assert len(started) - len(revealed) <= 1
    for event in events:
        if isinstance(event, ev.CardsDealt):
            assert len(set(event.cards)) == 2
            for viewer in (None, 0, 1):
                shown = RULES.redact(event, viewer)
                assert isinstance(shown, ev.CardsDealt)
                assert [card == HIDDEN for card in shown.cards] == [
                    viewer != seat for seat in (0, 1)
                ]
