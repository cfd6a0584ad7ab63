"""Bots' speed: every built-in policy's decision time, and engine-only simulation hands/s
side by side with an older tree in the same run.

Rows:
* decisions: engine-only simulations of every game (six seats: equity, tight, random)
  record each decision point a bot met (`run_engine_only(on_decision=...)`); then every
  policy decides on every recorded view, one call at a time, timed in CPU time of this
  thread (what the decision costs) and in wall time (what a caller waits on this shared
  machine): p50, p99 and the slowest call per policy and game. Target: p99 under 5 ms.
* simulation: `croupier simulate --engine-only` hands per CPU second for every game (six
  seats, equity, tight, random, difficulty 0.5), in a child process of this tree and, when
  `CROUPIER_BENCH_BASE` names an older checkout (say a worktree of the previous main, with
  its protos generated and its engine built), of that tree too, the two interleaved over
  `ROUNDS` rounds (best of each): the ratio is the speed-up. Target: at least 10x.

`python -m bench --only bots [--quick]`; `CROUPIER_BENCH_BASE=/work/wt/base python -m bench
--only bots` for the side-by-side rows.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.percentiles import percentile
from services.bots.engine_ranker import EvaluatorHandRanker
from services.bots.policies import NAMES, make_policy
from services.bots.ranker import default_ranker
from services.bots.simulation.engine_runner import SimulationSpec, run_engine_only
from services.bots.simulation.presets import PRESETS
from services.bots.view import BotView

ROOT = Path(__file__).resolve().parent.parent
BOTS = ("equity", "tight", "random")
SEATS = 6
ROUNDS = 3
TARGET_P99_MS = 5.0
TARGET_SPEEDUP = 10.0

# Run in a child process with the tree under test first on the path; prints one JSON line.
_CHILD = """
import json, resource, sys, time
from services.bots.engine_ranker import EvaluatorHandRanker
from services.bots.ranker import default_ranker
from services.bots.simulation.engine_runner import SimulationSpec, run_engine_only
game, hands = sys.argv[1], int(sys.argv[2])
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
spec = SimulationSpec(game=game, hands=3, seats=6, bots=("equity", "tight", "random"))
run_engine_only(spec, default_ranker(), EvaluatorHandRanker())  # tables built, caches warm
spec = SimulationSpec(game=game, hands=hands, seats=6, bots=("equity", "tight", "random"))
start, wall = cpu(), time.perf_counter()
report = run_engine_only(spec, default_ranker(), EvaluatorHandRanker())
print(json.dumps({"hands": report.hands, "cpu": cpu() - start,
                  "wall": time.perf_counter() - wall, "conserved": report.conserved}))
"""


def _decision_views(game: str, hands: int) -> list[BotView]:
    views: list[BotView] = []
    spec = SimulationSpec(game=game, hands=hands, seats=SEATS, bots=BOTS)
    run_engine_only(spec, default_ranker(), EvaluatorHandRanker(), on_decision=views.append)
    return views


def _decision_rows(quick: bool) -> list[dict[str, Any]]:
    rows = []
    ranker = default_ranker()
    for game in PRESETS:
        views = _decision_views(game, 12 if quick else 60)
        for name in NAMES:
            policy = make_policy(name, ranker, 0.5)
            cpu_ms, wall_ms = [], []
            for i, view in enumerate(views):
                rng = random.Random(i)
                start_cpu, start_wall = time.thread_time(), time.perf_counter()
                policy.choose(view, rng)
                cpu_ms.append((time.thread_time() - start_cpu) * 1e3)
                wall_ms.append((time.perf_counter() - start_wall) * 1e3)
            rows.append(
                {
                    "variant": f"decision, {name}, {game} ({len(views)} decision points)",
                    "p50 cpu ms": percentile(cpu_ms, 0.5),
                    "p99 cpu ms": percentile(cpu_ms, 0.99),
                    "max cpu ms": max(cpu_ms),
                    "p99 wall ms": percentile(wall_ms, 0.99),
                    "target p99 ms": TARGET_P99_MS,
                }
            )
    return rows


def _simulate(tree: Path, game: str, hands: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    env["PYTHONPATH"] = str(tree)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, game, str(hands)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _simulation_rows(quick: bool) -> list[dict[str, Any]]:
    base_dir = os.environ.get("CROUPIER_BENCH_BASE", "").strip()
    base = Path(base_dir).resolve() if base_dir else None
    rows = []
    for game in PRESETS:
        hands = 40 if quick else 300
        # The older tree is far slower: fewer hands keep its turn short, and rates compare.
        base_hands = max(10, hands // 5)
        best: dict[str, float] = {}
        for _ in range(ROUNDS):
            for name, tree, count in (("croupier", ROOT, hands), ("base", base, base_hands)):
                if tree is None:
                    continue
                measured = _simulate(tree, game, count)
                if not measured["conserved"]:
                    raise RuntimeError(f"{name} lost chips in {game}")
                best[name] = max(best.get(name, 0.0), measured["hands"] / measured["cpu"])
        row: dict[str, Any] = {
            "variant": f"simulate --engine-only, {game}, {SEATS} seats, {'/'.join(BOTS)}",
            "croupier": best["croupier"],
            "unit": "hands/cpu s",
        }
        if base is not None:
            row.update(base=best["base"], ratio=best["croupier"] / best["base"])
            row["target ratio"] = TARGET_SPEEDUP
        rows.append(row)
    return rows


def run(quick: bool) -> list[dict[str, Any]]:
    return _decision_rows(quick) + _simulation_rows(quick)
