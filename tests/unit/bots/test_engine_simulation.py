"""Bots through the pure engine: every variant to the end, legal actions only, chips conserved."""

from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

import pytest

from services.bots.engine_ranker import EvaluatorHandRanker
from services.bots.engine_view import to_bot_view
from services.bots.ranker import EvaluatorRanker
from services.bots.simulation.deals import SeededDeck
from services.bots.simulation.engine_runner import (
    SimulationReport,
    SimulationSpec,
    run_engine_only,
)
from services.bots.simulation.presets import PRESETS, preset
from services.bots.view import BotView, Kind, Variant
from services.games.poker.chance import NeedCards, deal_from, pending_chance
from services.games.poker.commands import SitDown, StartHand
from services.games.poker.legal import legal_actions
from services.games.poker.reducer import apply_all
from services.games.poker.rules import decide
from services.games.poker.state import new_table


@pytest.fixture(scope="module")
def hand_ranker() -> EvaluatorHandRanker:
    return EvaluatorHandRanker()


def test_the_first_decision_of_a_hand_reads_as_the_table_shows_it() -> None:
    state = new_table(preset("nlhe").config(seats=3, first_button=0, stack_units=100))
    for seat in range(3):
        state = apply_all(state, decide(state, SitDown(seat, f"p{seat}", 200)))
    state = apply_all(state, decide(state, StartHand()))
    request = pending_chance(state)
    assert isinstance(request, NeedCards)  # the hole cards
    state = apply_all(state, decide(state, deal_from(request, SeededDeck(3, 0))))
    assert state.hand is not None
    to_act = state.hand.to_act
    assert to_act is not None
    view = to_bot_view(state, legal_actions(state, to_act))
    assert view.variant is Variant.HOLDEM and len(view.hole) == 2 and view.board == ()
    assert (view.pot, view.to_call, view.unit, view.opponents) == (3, 2, 2, 2)
    assert view.kinds >= {Kind.FOLD, Kind.CALL, Kind.RAISE}
    raise_range = view.find(Kind.RAISE)
    assert raise_range is not None and raise_range.min_amount == 4


@pytest.mark.parametrize("game", sorted(PRESETS))
def test_bots_finish_every_variant_without_an_illegal_action(
    game: str, ranker: EvaluatorRanker, hand_ranker: EvaluatorHandRanker
) -> None:
    seats = 4
    spec = SimulationSpec(
        game=game, hands=12, seats=seats, bots=("equity", "tight", "random"), difficulty=0.0
    )
    report = run_engine_only(spec, ranker, hand_ranker)
    assert report.illegal == []
    assert report.hands == 12 and report.conserved
    assert sum(result.net_chips for result in report.results) == 0


def test_every_decision_point_is_shown_to_the_observer_before_the_bot_decides(
    ranker: EvaluatorRanker, hand_ranker: EvaluatorHandRanker
) -> None:
    seen: list[BotView] = []
    spec = SimulationSpec(game="spit", hands=6, seats=3, bots=("equity", "tight", "random"))
    report = run_engine_only(spec, ranker, hand_ranker, on_decision=seen.append)
    assert len(seen) == report.decisions > 0
    assert all(view.legal for view in seen)


def test_a_seeded_duplicate_match_replays_identically(
    ranker: EvaluatorRanker, hand_ranker: EvaluatorHandRanker
) -> None:
    spec = SimulationSpec(
        game="nlhe", hands=12, seats=3, bots=("tight", "random"), duplicate=True, seed=5
    )
    first = run_engine_only(spec, ranker, hand_ranker)
    second = run_engine_only(spec, ranker, hand_ranker)
    assert [r.net_chips for r in first.results] == [r.net_chips for r in second.results]


@pytest.mark.slow
def test_equity_beats_random_over_a_seeded_duplicate_match(
    ranker: EvaluatorRanker, hand_ranker: EvaluatorHandRanker
) -> None:
    spec = SimulationSpec(
        game="nlhe",
        hands=300,
        seats=2,
        bots=("equity", "random"),
        duplicate=True,
        seed=7,
        difficulty=0.0,
    )
    report = run_engine_only(spec, ranker, hand_ranker)
    equity, random_bot = (
        next(r for r in report.results if r.bot == b) for b in ("equity", "random")
    )
    # The whole 95% interval of each bot lies on its side of zero.
    assert equity.low > 0 > random_bot.high
    assert report.conserved


class ReportChanges(TypedDict, total=False):
    """The fields of a SimulationReport that each case below changes."""

    conserved: bool
    illegal: list[str]
    timed_out: int


@pytest.mark.parametrize(
    ("changes", "failed"),
    [
        ({}, False),
        ({"conserved": False}, True),
        ({"illegal": ["deal 3 rotation 0: not your turn"]}, True),
        ({"timed_out": 1}, True),  # full stack: a bot that did not act
    ],
)
def test_a_simulation_fails_on_an_illegal_action_lost_chips_or_a_timed_out_decision(
    changes: ReportChanges, failed: bool
) -> None:
    spec = SimulationSpec(game="nlhe", hands=1, seats=2, bots=("random",))
    base = SimulationReport(spec, results=[], hands=1, decisions=2, seconds=0.1, conserved=True)
    report = replace(base, **changes)
    assert report.failed is failed
