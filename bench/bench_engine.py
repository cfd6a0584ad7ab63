"""Pure rules-engine throughput: hands per second per variant with random legal players,
side by side with pokerkit driving the same number of no-limit hold'em hands in this run.

Both sides play six-handed, 1/2 blinds, 200-chip stacks reset every hand, with the same
random policy: each decision picks uniformly among fold (only when facing a bet),
check/call, and bet/raise (a uniform amount in the legal range; all-in when that is the only
way to raise); draws discard a uniform number of random cards. Every hand runs from the
deal to the award, including showdown ranking (the engine's stdlib reference ranker; pokerkit
its own evaluator) and, for the engine, the event fold it needs for replay.

The engine runs as `make` builds it, compiled with mypyc (tools/build_engine.py), and again
from its source in a second process (`build` = interpreted), both against the same pokerkit
measurement; pokerkit is pure Python as published. The bench's own random player and stub
are interpreted on both sides.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from services.games.cardtext import FULL_DECK, Card
from services.games.poker import (
    GAMES,
    Act,
    Action,
    LegalActions,
    SitDown,
    Structure,
    TableConfig,
    TableState,
    execute,
    new_table,
)
from services.games.poker.playout import play_hand
from services.games.reference_ranking import ReferenceRanker

SEATS = 6
STACK = 200


class _Stub:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cards = list(FULL_DECK)
        rng.shuffle(self.cards)

    def __iter__(self) -> _Stub:
        return self

    def __next__(self) -> Card:
        return self.cards.pop()

    def put_back(self, cards: tuple[Card, ...]) -> None:
        self.cards.extend(cards)
        self.rng.shuffle(self.cards)


def _policy(rng: random.Random):
    def choose(state: TableState, legal: LegalActions) -> Act:
        acts = legal.actions
        seat = legal.seat
        if Action.DISCARD in acts or Action.OPEN_DISCARD in acts:
            action = Action.OPEN_DISCARD if Action.OPEN_DISCARD in acts else Action.DISCARD
            n = rng.randint(legal.min_discards, legal.max_discards)
            return Act(seat, action, cards=tuple(rng.sample(legal.discardable, n)))
        if Action.SHOW in acts:
            return Act(seat, Action.SHOW)
        options = ["c"]
        if Action.FOLD in acts:
            options.append("f")
        if Action.BET in acts or Action.RAISE in acts or Action.ALL_IN in acts:
            options.append("r")
        pick = rng.choice(options)
        if pick == "f":
            return Act(seat, Action.FOLD)
        if pick == "c":
            return Act(seat, Action.CHECK if Action.CHECK in acts else Action.CALL)
        for kind in (Action.BET, Action.RAISE):
            if kind in acts:
                return Act(seat, kind, rng.randint(legal.min_to, legal.max_to))
        return Act(seat, Action.ALL_IN)

    return choose


def _table(config: TableConfig) -> TableState:
    state = new_table(config)
    for seat in range(SEATS):
        state, _ = execute(state, SitDown(seat, f"p{seat}", STACK))
    return state


def _timed(play: Callable[[], None], hands: int) -> tuple[float, float]:
    """(hands per wall-clock second, hands per CPU second of this process). The CPU rate is
    the fair one on a machine shared with other jobs; both are reported."""
    wall, cpu = time.perf_counter(), time.process_time()
    play()
    return hands / (time.perf_counter() - wall), hands / (time.process_time() - cpu)


def engine_rate(
    game: str, structure: Structure | None, hands: int, seed: int = 1
) -> tuple[float, float]:
    definition = GAMES[game]
    ante = 1 if definition.forced_bets.value == "antes" else 0
    config = TableConfig(game=definition, structure=structure, seats=SEATS, ante=ante)
    table = _table(config)
    rng = random.Random(seed)
    policy = _policy(rng)
    ranker = ReferenceRanker()

    def play() -> None:
        for _ in range(hands):
            play_hand(table, policy, _Stub(rng), ranker)

    return _timed(play, hands)


def pokerkit_rate(hands: int, seed: int = 1) -> tuple[float, float]:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    automations = tuple(Automation)
    rng = random.Random(seed)

    def play() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(hands):
                state = NoLimitTexasHoldem.create_state(
                    automations, True, 0, (1, 2), 2, (STACK,) * SEATS, SEATS, mode=Mode.CASH_GAME
                )
                while state.status:
                    options = ["c"]
                    if state.can_fold() and state.checking_or_calling_amount:
                        options.append("f")
                    if state.can_complete_bet_or_raise_to():
                        options.append("r")
                    pick = rng.choice(options)
                    if pick == "f":
                        state.fold()
                    elif pick == "c":
                        state.check_or_call()
                    else:
                        low = state.min_completion_betting_or_raising_to_amount
                        high = state.max_completion_betting_or_raising_to_amount
                        # (set whenever can_complete_bet_or_raise_to() offered "r")
                        assert low is not None and high is not None
                        state.complete_bet_or_raise_to(rng.randint(low, high))

    return _timed(play, hands)


VARIANTS = (
    ("texas-holdem", Structure.NO_LIMIT),
    ("texas-holdem", Structure.POT_LIMIT),
    ("texas-holdem", Structure.FIXED_LIMIT),
    ("holdem-hilo", Structure.FIXED_LIMIT),
    ("spit-in-the-ocean", Structure.FIXED_LIMIT),
    ("six-card-open-draw", Structure.FIXED_LIMIT),
)


def engine_rates(hands: int) -> list[tuple[str, str, float, float]]:
    """(game, structure, hands/s, hands per CPU-s) for every variant in this process."""
    rates = []
    for game, structure in VARIANTS:
        wall, cpu = engine_rate(game, structure, hands)
        rates.append((game, structure.value, wall, cpu))
    return rates


def _interpreted_rates(hands: int) -> list[tuple[str, str, float, float]]:
    """`engine_rates` in a second process that runs the engine from its source."""
    code = (
        "import json, sys; from tools.build_engine import use_interpreted; use_interpreted(); "
        "from bench.bench_engine import engine_rates; "
        f"json.dump(engine_rates({hands}), sys.stdout)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return [
        (game, structure, wall, cpu) for game, structure, wall, cpu in json.loads(result.stdout)
    ]


def _build() -> str:
    from tools.build_engine import runs_compiled

    return "mypyc" if runs_compiled() else "interpreted"


def run(quick: bool) -> list[dict[str, Any]]:
    hands = 200 if quick else 1500
    peer_wall, peer_cpu = pokerkit_rate(hands)
    rows: list[dict[str, Any]] = [
        {
            "engine": "pokerkit 0.7",
            "build": "interpreted",
            "game": "texas-holdem",
            "structure": "no-limit",
            "hands": hands,
            "hands_per_s": peer_wall,
            "hands_per_cpu_s": peer_cpu,
            "x_pokerkit_cpu": 1.0,
        }
    ]
    builds = [(_build(), engine_rates(hands))]
    if builds[0][0] != "interpreted":
        builds.append(("interpreted", _interpreted_rates(hands)))
    for build, rates in builds:
        for game, structure, wall, cpu in rates:
            rows.append(
                {
                    "engine": "croupier",
                    "build": build,
                    "game": game,
                    "structure": structure,
                    "hands": hands,
                    "hands_per_s": wall,
                    "hands_per_cpu_s": cpu,
                    "x_pokerkit_cpu": cpu / peer_cpu,
                }
            )
    return rows
