"""Engine-only simulation: bots play hands through the pure engine, no services involved.

Every hand starts from a fresh table where each seat has `stack_units` big blinds, so a hand's
result is just final stack minus starting stack. Cards come from `SeededDeck`, decisions from
the bots' pure policies fed with `engine_view.to_bot_view`; the engine validates every action
(an illegal one is recorded and that hand is dropped from the statistics).
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from services.bots.engine_view import to_bot_view, to_command
from services.bots.policies import NAMES, Policy, make_policy
from services.bots.simulation.deals import SeededDeck, rotated, rotations, seating
from services.bots.simulation.presets import preset
from services.bots.simulation.stats import BotResult, summarize
from services.bots.strength import Ranker
from services.bots.view import BotView
from services.games.errors import RuleViolation
from services.games.poker.commands import Act, SitDown
from services.games.poker.legal import LegalActions
from services.games.poker.playout import play_hand
from services.games.poker.reducer import apply_all
from services.games.poker.rules import decide
from services.games.poker.state import TableState, new_table
from services.games.ranking import HandRanker


@dataclass(frozen=True, slots=True)
class SimulationSpec:
    game: str
    hands: int
    seats: int
    bots: tuple[str, ...]
    duplicate: bool = False
    seed: int = 1
    stack_units: int = 100
    difficulty: float = 0.5

    def __post_init__(self) -> None:
        unknown = [b for b in self.bots if b not in NAMES]
        if unknown or not self.bots:
            raise ValueError(f"unknown bots {unknown}; choose from {', '.join(NAMES)}")
        if self.hands < 1 or self.seats < 2:
            raise ValueError("need at least one hand and two seats")
        from services.bots.simulation.presets import PRESETS

        if self.game not in PRESETS:
            raise ValueError(f"unknown game {self.game!r}; choose one of {', '.join(PRESETS)}")
        try:  # the table the run would deal: says now if the seats do not fit the game
            preset(self.game).config(self.seats, 0, self.stack_units)
        except RuleViolation as exc:
            raise ValueError(str(exc)) from None


@dataclass
class SimulationReport:
    spec: SimulationSpec
    results: list[BotResult]
    hands: int
    decisions: int
    seconds: float
    conserved: bool
    illegal: list[str] = field(default_factory=list)
    mode: str = "engine-only"
    timed_out: int = 0  # decisions the table timed out (full stack: a bot that did not act)

    @property
    def failed(self) -> bool:
        """An illegal action, chips not conserved, or a decision the table had to time out
        (a bot that did not act): what makes `croupier simulate` exit 1."""
        return bool(self.illegal) or not self.conserved or self.timed_out > 0


def run_engine_only(
    spec: SimulationSpec,
    ranker: Ranker,
    hand_ranker: HandRanker,
    progress: Callable[[int], None] | None = None,
    on_decision: Callable[[BotView], None] | None = None,
) -> SimulationReport:
    """Play `spec` through the pure engine; `on_decision` sees every decision point's view
    before its bot decides (the bots benchmark times the policies on them)."""
    chosen = preset(spec.game)
    seated = seating(spec.bots, spec.seats)
    policies = {name: make_policy(name, ranker, spec.difficulty) for name in set(seated)}
    samples: dict[str, list[float]] = defaultdict(list)
    hands_of: dict[str, int] = defaultdict(int)
    net: dict[str, int] = defaultdict(int)
    illegal: list[str] = []
    conserved = True
    played = decisions = deal = 0
    started = time.perf_counter()
    stack = spec.stack_units * chosen.unit
    while played < spec.hands:
        totals: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        for rotation in rotations(spec.seats, spec.duplicate):
            if played >= spec.hands:
                break
            assignment = rotated(seated, rotation)
            config = chosen.config(spec.seats, deal % spec.seats, spec.stack_units)
            state = _seat_everyone(new_table(config), assignment, stack)
            rng = random.Random(f"{spec.seed}/{deal}/{rotation}")
            decide_for = _decider(assignment, policies, rng, on_decision)
            try:
                run = play_hand(state, decide_for, SeededDeck(spec.seed, deal), hand_ranker)
            except RuleViolation as violation:
                illegal.append(f"deal {deal} rotation {rotation}: {violation}")
                played += 1
                continue
            decisions += run.decisions
            deltas = [run.state.stack(seat) - stack for seat in range(spec.seats)]
            conserved = conserved and sum(deltas) == 0
            for seat, delta in enumerate(deltas):
                bot = assignment[seat]
                totals[bot] += delta
                counts[bot] += 1
                net[bot] += delta
                hands_of[bot] += 1
            played += 1
            if progress is not None:
                progress(1)
        for bot, total in totals.items():
            samples[bot].append(total / counts[bot])
        deal += 1
    results = [
        summarize(bot, samples[bot], hands_of[bot], net[bot], chosen.unit)
        for bot in dict.fromkeys(seated)
    ]
    return SimulationReport(
        spec=spec,
        results=results,
        hands=played,
        decisions=decisions,
        seconds=time.perf_counter() - started,
        conserved=conserved and not illegal,
        illegal=illegal,
    )


def _seat_everyone(state: TableState, assignment: list[str], stack: int) -> TableState:
    for seat, bot in enumerate(assignment):
        state = apply_all(state, decide(state, SitDown(seat, f"{bot}-{seat}", stack)))
    return state


def _decider(
    assignment: list[str],
    policies: dict[str, Policy],
    rng: random.Random,
    on_decision: Callable[[BotView], None] | None,
) -> Callable[[TableState, LegalActions], Act]:
    def choose(state: TableState, legal: LegalActions) -> Act:
        policy = policies[assignment[legal.seat]]
        view = to_bot_view(state, legal)
        if on_decision is not None:
            on_decision(view)
        return to_command(state, legal.seat, policy.choose(view, rng))

    return choose
