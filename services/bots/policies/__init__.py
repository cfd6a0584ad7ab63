"""The built-in bot policies by name: `random`, `tight`, `equity`.

Every policy is `choose(view, rng) -> BotAction`: pure, deterministic for a seeded `rng`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from services.bots.policies import random_policy
from services.bots.policies.equity import EquityPolicy
from services.bots.policies.tight import TightPolicy
from services.bots.strength import Ranker
from services.bots.view import BotAction, BotView

NAMES = ("random", "tight", "equity")


class Policy(Protocol):
    def choose(self, view: BotView, rng: random.Random) -> BotAction: ...


class _RandomPolicy:
    def choose(self, view: BotView, rng: random.Random) -> BotAction:
        return random_policy.choose(view, rng)


def make_policy(name: str, ranker: Ranker, difficulty: float = 0.5) -> Policy:
    """The policy called `name`; `difficulty` (0..1) sets how hard the equity bot thinks."""
    builders: dict[str, Callable[[], Policy]] = {
        "random": _RandomPolicy,
        "tight": lambda: TightPolicy(ranker),
        "equity": lambda: EquityPolicy(
            ranker, samples=int(40 + 260 * max(0.0, min(1.0, difficulty)))
        ),
    }
    if name not in builders:
        raise ValueError(f"unknown bot policy {name!r}; choose one of {', '.join(NAMES)}")
    return builders[name]()
