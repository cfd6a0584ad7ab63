"""Winnings in big blinds per 100 hands with a 95% confidence interval."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959964


@dataclass(frozen=True, slots=True)
class BotResult:
    bot: str
    hands: int  # hands the bot was dealt into (summed over its seats)
    net_chips: int
    bb_per_100: float
    ci95: float  # half-width of the 95% interval, in bb/100

    @property
    def low(self) -> float:
        return self.bb_per_100 - self.ci95

    @property
    def high(self) -> float:
        return self.bb_per_100 + self.ci95


def summarize(
    bot: str, samples: Sequence[float], hands: int, net_chips: int, unit: int
) -> BotResult:
    """`samples` are independent per-deal averages of chips won per hand by this bot."""
    n = len(samples)
    if n == 0:
        return BotResult(bot, 0, 0, 0.0, math.inf)
    mean = sum(samples) / n
    variance = sum((x - mean) ** 2 for x in samples) / (n - 1) if n > 1 else math.inf
    half = Z95 * math.sqrt(variance / n) if n > 1 else math.inf
    scale = 100 / unit
    return BotResult(bot, hands, net_chips, mean * scale, half * scale)
