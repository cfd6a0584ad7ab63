"""Pre-flop equity from a precomputed table, instead of a Monte Carlo run per decision.

Before the flop a hold'em hand's equity against random hands depends only on its class (a
pair, two suited or two offsuit ranks: 169 of them), the number of opponents and the game
(high, or high / eight-or-better low). tools/gen_preflop_table.py measured every entry with
the ranking library's Monte Carlo and wrote services/bots/preflop_table.py; a lookup costs a
microsecond where a few hundred fresh deals cost a hundred or more, and its error (at most
0.0025) is a tenth of a 200-deal run's.
"""

from __future__ import annotations

import functools
from types import ModuleType

from services.bots.view import BotView, Variant

RANKS = "23456789TJQKA"
MAX_OPPONENTS = 9


def hand_classes() -> list[str]:
    """Every starting-hand class, strongest ranks first: AA, AKs, AKo, ..., 22."""
    names = []
    for high in range(len(RANKS) - 1, -1, -1):
        for low in range(high, -1, -1):
            if high == low:
                names.append(RANKS[high] * 2)
            else:
                names.extend((RANKS[high] + RANKS[low] + "s", RANKS[high] + RANKS[low] + "o"))
    return names


def class_of(hole: tuple[str, ...]) -> str:
    """The class of two hole cards given as text ("Ah", "Kh" -> "AKs")."""
    a, b = sorted(hole, key=lambda card: RANKS.index(card[0]), reverse=True)
    if a[0] == b[0]:
        return a[0] + b[0]
    return a[0] + b[0] + ("s" if a[1] == b[1] else "o")


def representative(name: str) -> list[int]:
    """Two cards of the class as the ranking library's card numbers (suit-major, clubs first)."""
    high, low = RANKS.index(name[0]), RANKS.index(name[1])
    second_suit = 0 if name.endswith("s") else 1
    return [high, low + 13 * second_suit]


@functools.cache
def _table() -> ModuleType:
    from services.bots import preflop_table

    return preflop_table


def lookup(view: BotView) -> float | None:
    """The table's equity for this decision, or None when the table does not apply (not
    hold'em, a board or dead cards already seen, more opponents than it covers)."""
    if view.variant not in (Variant.HOLDEM, Variant.HOLDEM_HILO):
        return None
    if view.board or view.dead or len(view.hole) != 2:
        return None
    opponents = max(1, view.opponents)
    if opponents > MAX_OPPONENTS:
        return None
    table = _table()
    rows: dict[str, tuple[float, ...]] = (
        table.HILO if view.variant is Variant.HOLDEM_HILO else table.HIGH
    )
    return rows[class_of(view.hole)][opponents - 1]
