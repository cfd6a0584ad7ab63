"""Video poker: the optimal-hold advisor's latency, the exact analyses' time, and the pure
rules' rounds per second.

Rows (wall and CPU seconds of this single-threaded process; `load_1m` is the one-minute load
average when the row started, since two cores are shared with other jobs):
* tables: building one pay table's subset tables (once per process), standard and with the
  Split Card feature;
* advisor: p50/p99 latency of `advise` (all 32 holds, exact) over random hands, at 5 coins,
  and with the feature when a split card is dealt and when it is not;
* naive enumeration: the same answer by enumerating every draw of every hold (2,598,960 final
  hands, classified with numpy): what the advisor's tables save, side by side;
* exact analysis: every deal under optimal play, each table, in a fresh process as
  `croupier vp analyze` runs it (imports and tables included; CPU is the child's); the Split
  Card feature's analysis in the full run;
* peer: the same method in plain C for Jacks or Better (bench/vp_peer.c, compiled here with
  `cc -O2`; every deal, no suit symmetry, no frequencies), the native floor beside the numpy
  analysis;
* rounds: 10-line rounds through the pure rules, every request answered with the dealer's own
  derivation (the floor a served round sits on);
* served rounds: the same rounds through gRPC, the real services as processes, one player
  waiting on its watch stream for each step (bench/videopoker_served.py): rounds/s, the
  round's p50/p99 and each service's CPU a round.

`python -m bench --only videopoker [--quick]`.
"""

from __future__ import annotations

import hashlib
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.percentiles import percentile
from bench.videopoker_served import served_rounds_row
from services.games import contract as c
from services.games.cards import parse_card
from services.games.videopoker import RULES, Deal, Hold, MachineConfig
from services.games.videopoker.split import OFFSETS, second_card
from services.games.videopoker.state import STANDARD_DECK
from services.shuffles.derivation import commitment, derive_order
from services.videopoker_analysis import advisor, split_tables, tables
from services.videopoker_analysis.classes import classes
from services.videopoker_analysis.combos import combinations_array
from services.videopoker_analysis.subsets import MASKS, mask_positions

PAYTABLE = "jacks-9-6"


def _load() -> float:
    return round(os.getloadavg()[0], 1)


def _timed(name: str, fn: Callable[[], Any]) -> dict[str, Any]:
    load = _load()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return {
        "variant": name,
        "wall_s": round(time.perf_counter() - wall, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
        "load_1m": load,
    }


def _analysis_row(paytable: str, split: bool) -> dict[str, Any]:
    """`croupier vp analyze` as a fresh process does it: imports, tables and every deal."""
    call = "analyze_split" if split else "analyze"
    module = "split_exact" if split else "exact"
    code = (
        f"from services.videopoker_analysis.{module} import {call}; "
        f"print(float({call}({paytable!r}).return_))"
    )
    load = _load()
    seconds, cpu, printed = _child_cpu([sys.executable, "-c", code])
    feature = ", Split Card feature" if split else ""
    return {
        "variant": f"exact analysis{feature}, {paytable} (fresh process)",
        "wall_s": round(seconds, 2),
        "cpu_s": round(cpu, 2),
        "return": f"{float(printed) * 100:.4f}%",
        "target_wall_s": 60,
        "load_1m": load,
    }


PEER = Path(__file__).with_name("vp_peer.c")


def _child_cpu(command: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of a child process, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return seconds, cpu, done.stdout


def _peer_row() -> dict[str, Any]:
    """The same method in plain C (bench/vp_peer.c, cc -O2, every deal, no suit symmetry)."""
    name = "peer: the same method in C, jacks-9-6 (cc -O2, all deals, return only)"
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return {"variant": name, "note": "no C compiler on this machine"}
    with tempfile.TemporaryDirectory() as scratch:
        binary = str(Path(scratch) / "vp_peer")
        subprocess.run([compiler, "-O2", "-o", binary, str(PEER)], check=True)
        load = _load()
        seconds, cpu, printed = _child_cpu([binary])
    return {
        "variant": name,
        "wall_s": round(seconds, 2),
        "cpu_s": round(cpu, 2),
        "return": f"{float(printed) * 100:.4f}%",
        "load_1m": load,
    }


def _hands(count: int, split: bool, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    hands = []
    for _ in range(count):
        cards = rng.sample(STANDARD_DECK, 5)
        if split:
            position = rng.randrange(5)
            cards[position] += "|" + second_card(cards[position], rng.choice(OFFSETS))
        hands.append(cards)
    return hands


def _latency(name: str, hands: list[list[str]], coins: int) -> dict[str, Any]:
    load = _load()
    times = []
    for cards in hands:
        started = time.perf_counter()
        advisor.advise(cards, PAYTABLE, coins)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "variant": name,
        "hands": len(hands),
        "p50_ms": round(percentile(times, 0.5), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "target_p99_ms": 200,
        "load_1m": load,
    }


def _naive(cards: list[str]) -> float:
    """Every hold's value by enumerating its draws (5 coins): the answer the tables give."""
    table = classes(PAYTABLE, False)
    pays = table.pays(5)
    dealt = [advisor.card_index(card) for card in cards]
    undealt = np.array([card for card in range(52) if card not in dealt])
    best = -1.0
    for mask in range(MASKS):
        held = [dealt[i] for i in mask_positions(mask)]
        drawn = undealt[combinations_array(47, 5 - len(held))]
        final = np.hstack([np.tile(held, (len(drawn), 1)), drawn]).astype(np.int64)
        best = max(best, float(pays[table.of_cards(final)].mean()))
    return best


def _naive_row(hands: list[list[str]]) -> dict[str, Any]:
    load = _load()
    times = []
    for cards in hands:
        started = time.perf_counter()
        _naive(cards)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "variant": "naive enumeration, 5 coins (every draw of every hold)",
        "hands": len(hands),
        "p50_ms": round(percentile(times, 0.5), 1),
        "load_1m": load,
    }


def _answer(request: c.ChanceRequest, shuffles: dict[str, list[str]]) -> c.Command:
    """What the table shell will send, with the dealer's derivation for every shuffle."""
    if isinstance(request, c.OpenShuffle):
        sid = f"bench/{request.round}/{request.name}"
        seed = hashlib.sha256(sid.encode()).digest()
        spec = [parse_card(card) for card in request.deck.cards or STANDARD_DECK]
        shuffles[request.name] = [str(card) for card in derive_order(seed, sid, (), 0, spec)]
        return c.ShuffleOpened(request.round, request.name, sid, commitment(sid, seed).hex())
    if isinstance(request, c.DrawCards):
        order = shuffles[request.name]
        cards, shuffles[request.name] = order[: request.count], order[request.count :]
        return c.CardsDrawn(request.round, request.name, tuple(cards))
    if isinstance(request, c.Transfer):
        return c.TransferDone(request.key)
    if isinstance(request, c.CloseShuffle):
        return c.ShuffleClosed(request.round, request.name, "{}")
    raise AssertionError(request)


def _rounds_row(rounds: int) -> dict[str, Any]:
    state = RULES.initial_state(MachineConfig())
    for event in RULES.decide(state, c.SitDown(0, "bench", 10**9)):
        state = RULES.apply(state, event)
    rng = random.Random(5)
    load = _load()
    cpu = time.process_time()
    for number in range(1, rounds + 1):
        shuffles: dict[str, list[str]] = {}
        commands: list[c.Command] = [c.Move(0, Deal(10, 10, PAYTABLE))]
        while commands:
            for event in RULES.decide(state, commands.pop()):
                state = RULES.apply(state, event)
            request = RULES.pending_chance(state)
            if request is not None:
                commands.append(_answer(request, shuffles))
            elif state.round is not None and state.round.hold is None:
                held = tuple(p for p in range(5) if rng.random() < 0.4)
                commands.append(c.Move(0, Hold(number, held)))
    seconds = time.process_time() - cpu
    return {
        "variant": "rounds, 10 lines x 10 coins, pure rules + dealer derivation",
        "rounds": rounds,
        "rounds_per_cpu_s": round(rounds / seconds, 1),
        "load_1m": load,
    }


def run(quick: bool) -> list[dict[str, Any]]:
    rows = [
        _timed("tables: standard, jacks-9-6", lambda: tables.tables(PAYTABLE, False).pay_sums(5)),
        _timed(
            "tables: Split Card feature, jacks-9-6",
            lambda: (
                tables.tables(PAYTABLE, True).pay_sums(10),
                split_tables.split_tables(PAYTABLE),
                tables.stub_sums(PAYTABLE),
            ),
        ),
    ]
    count = 200 if quick else 2000
    rows.append(_latency("advisor, 5 coins", _hands(count, False, 1), 5))
    rows.append(_latency("advisor, feature, split card dealt", _hands(count, True, 2), 10))
    rows.append(_latency("advisor, feature, no split card dealt", _hands(count, False, 3), 10))
    rows.append(_naive_row(_hands(1 if quick else 5, False, 4)))
    everyone = ("jacks-9-6", "deuces-wild", "double-double-bonus-9-6")
    rows.extend(_analysis_row(paytable, False) for paytable in everyone[: 1 if quick else 3])
    rows.append(_peer_row())
    if not quick:
        rows.append(_analysis_row(PAYTABLE, True))
    rows.append(_rounds_row(50 if quick else 500))
    rows.append(served_rounds_row(10 if quick else 40))
    return rows
