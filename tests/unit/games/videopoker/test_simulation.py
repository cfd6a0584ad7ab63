"""Seeded random play through the public rules: every invariant after every round."""

from __future__ import annotations

import random

import pytest

from services.games.videopoker import PAYTABLES, RULES
from services.games.videopoker import events as ev
from services.games.videopoker.reducer import apply_all
from services.games.videopoker.split import split_parts
from tests.unit.games.videopoker.machine import Machine


@pytest.mark.parametrize("paytable", sorted(PAYTABLES))
def test_random_play_keeps_every_invariant(paytable: str) -> None:
    rng = random.Random(paytable)
    machine = Machine(seed=paytable.encode())
    machine.sit(20_000)
    for _ in range(60):
        lines, coins = rng.choice((3, 5, 10)), rng.choice((1, 2, 3, 4, 5, 10))
        start = len(machine.events)
        machine.deal(lines, coins, paytable)
        current = machine.state.round
        assert current is not None
        shown = RULES.view_for(machine.state, 0)
        assert shown.round is not None
        splits = [card for card in shown.round.cards if "|" in card]
        assert len(splits) == (1 if current.split_dealt else 0)
        assert coins == 10 or not splits
        held = tuple(p for p in range(5) if rng.random() < 0.4)
        machine.hold(*held)
        round_events = machine.events[start:]
        draws = [e for e in round_events if isinstance(e, ev.LineDrawn)]
        settled = next(e for e in round_events if isinstance(e, ev.LinesSettled))
        assert len(draws) == lines == len(settled.results)
        for drawn, result in zip(draws, settled.results, strict=True):
            bases = [split_parts(card)[0] for card in drawn.cards]
            assert len(set(bases)) == len(bases) == 5 - len(held)  # no card twice on a line
            assert not set(bases) & set(current.dealt)  # drawn from the 47 undealt
            kept = [result.cards[p] for p in held]
            assert kept == [current.shown(p) for p in held]
            assert result.win == PAYTABLES[paytable].pay(result.hand, coins)
        assert settled.win == sum(r.win for r in settled.results)
        # A hidden split ticket is never sent to the player while the round is played.
        for event in round_events:
            if isinstance(event, ev.SplitPlaced) and event.position < 0:
                assert RULES.redact(event, 0) is None
        assert machine.state.seat is not None
        assert machine.escrow == machine.state.seat.stack
        assert machine.escrow + machine.house == 20_000
    assert apply_all(RULES.initial_state(machine.config), machine.events) == machine.state
