"""Pure poker hand evaluation: high, ace-to-five low, wild cards, best-of-N, showdown, equity.

Standard library plus NumPy (batch and equity only); no I/O. A shared library, not a
deployable: the evaluator service (`services.evaluator`) is a thin gRPC adapter over it, and
the table and the bots call it in-process. See docs/evaluator.md for the algorithms and
measured speeds.
"""

from services.ranking.best_of import ANY_CARDS, OMAHA, UseRule, best_high, best_low
from services.ranking.hands import (
    HandError,
    HandResult,
    LowResult,
    WildSubstitution,
    as_cards,
    cards_of_ranks,
)
from services.ranking.high import evaluate_high
from services.ranking.low import evaluate_low
from services.ranking.showdown import (
    GameRules,
    SeatCards,
    SeatResult,
    ShowdownResult,
    Split,
    showdown,
)
from services.ranking.values import Category

__all__ = [
    "ANY_CARDS",
    "OMAHA",
    "Category",
    "GameRules",
    "HandError",
    "HandResult",
    "LowResult",
    "SeatCards",
    "SeatResult",
    "ShowdownResult",
    "Split",
    "UseRule",
    "WildSubstitution",
    "as_cards",
    "best_high",
    "best_low",
    "cards_of_ranks",
    "evaluate_high",
    "evaluate_low",
    "showdown",
]
