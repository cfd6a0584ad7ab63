"""The equity bot against its own older version, in a duplicate match through the engine.

`python -m bench.bots_versus_base --base TREE [--game nlhe] [--hands 2000] [--seats 2]
[--seed 1] [--difficulty 0.5]`: TREE is an older checkout (e.g. a worktree of the previous
main). Its `services/bots/strength.py` and `services/bots/policies/equity.py` are loaded
under other module names, so this process holds both equity policies: `equity` (this tree)
and `equity-base` (TREE's). They then play `croupier simulate --engine-only --duplicate`
(every deal once per seat rotation) and the simulator's table gives each one's bb/100 with
its 95% interval: a new policy that is not a worse player does not lose to the old one.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from rich.console import Console

import services.bots.simulation.engine_runner as runner
from services.bots.engine_ranker import EvaluatorHandRanker
from services.bots.policies import NAMES, Policy, make_policy
from services.bots.ranker import default_ranker
from services.bots.simulation.report import render
from services.bots.strength import Ranker

BASE_NAME = "equity-base"


def _load(name: str, path: Path, renames: dict[str, str]) -> ModuleType:
    source = path.read_text()
    for old, new in renames.items():
        source = source.replace(old, new)
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def base_policy_factory(base: Path) -> type:
    bots = base / "services" / "bots"
    _load("bench_base_strength", bots / "strength.py", {})
    module = _load(
        "bench_base_equity",
        bots / "policies" / "equity.py",
        {"services.bots.strength": "bench_base_strength"},
    )
    policy: type = module.EquityPolicy
    return policy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", required=True, type=Path, help="an older checkout")
    parser.add_argument("--game", default="nlhe")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--difficulty", type=float, default=0.5)
    args = parser.parse_args(argv)
    base_policy = base_policy_factory(args.base.resolve())
    samples = int(40 + 260 * max(0.0, min(1.0, args.difficulty)))  # as make_policy sizes it

    def make(name: str, ranker: Ranker, difficulty: float = 0.5) -> Policy:
        if name == BASE_NAME:
            built: Policy = base_policy(ranker, samples=samples)
            return built
        return make_policy(name, ranker, difficulty)

    # The simulator knows policies by name: teach it the base one (this process only).
    setattr(runner, "make_policy", make)  # noqa: B010
    setattr(runner, "NAMES", (*NAMES, BASE_NAME))  # noqa: B010
    spec = runner.SimulationSpec(
        game=args.game,
        hands=args.hands,
        seats=args.seats,
        bots=("equity", BASE_NAME),
        duplicate=True,
        seed=args.seed,
        difficulty=args.difficulty,
    )
    report = runner.run_engine_only(spec, default_ranker(), EvaluatorHandRanker())
    render(report, Console(width=120))
    return 1 if report.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
