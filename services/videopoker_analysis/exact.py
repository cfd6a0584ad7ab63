"""The exact return of a pay table under optimal play, over every deal (standard game).

Every one of the 134,459 deal classes (services.videopoker_analysis.symmetry) is valued for
all 32 holds from the subset tables (services.videopoker_analysis.subsets); the best hold's
value, weighted by the deals in the class, adds to the return. Exact: values are compared and
summed as integers on one common denominator (the LCM of the draw counts), and the return and
frequencies come out as fractions.

The frequency of each final hand needs the class counts of every chosen hold. Rather than
reading 32 histograms per deal, each deal adds its inclusion-exclusion coefficients (weight x
sign x the hold's scale) to the subsets it reads, and the frequencies are those coefficients
times the subset histograms, summed once at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from services.games.videopoker.paytables import MAX_COINS, Hand
from services.videopoker_analysis.combos import BINOM, DECK, all_hands
from services.videopoker_analysis.subsets import (
    COMMON,
    MASKS,
    MOBIUS,
    POPCOUNT,
    SCALE,
    subset_ranks,
)
from services.videopoker_analysis.symmetry import deal_classes
from services.videopoker_analysis.tables import tables

Progress = Callable[[int, int], None]  # (done, total)
MOBIUS_FLOAT = MOBIUS.T.astype(np.float64)


@dataclass(frozen=True)
class Analysis:
    paytable: str
    return_: Fraction  # per coin bet, 5 coins a line
    frequencies: dict[Hand, Fraction]  # probability of each final hand
    deals: int  # deal classes analysed


def analyze(paytable: str, progress: Progress | None = None, chunk: int = 16384) -> Analysis:
    """Optimal play at 5 coins a line."""
    standard = tables(paytable, False)
    sums, own = standard.pay_sums(MAX_COINS)
    deals = deal_classes(all_hands())
    n = len(deals.hands)
    sizes = [int(BINOM[DECK, k]) for k in range(6)]
    coefficients = [np.zeros(size, dtype=np.float64) for size in sizes]
    total = 0
    for start in range(0, n, chunk):
        part = deals.hands[start : start + chunk]
        weights = deals.weights[start : start + chunk]
        ranks = subset_ranks(part)
        values = np.empty(ranks.shape, dtype=np.float64)
        for mask in range(MASKS):
            size = int(POPCOUNT[mask])
            values[:, mask] = (own if size == 5 else sums[size])[ranks[:, mask]]
        # Exact: every value and total stays below 2^53.
        scaled = (values @ MOBIUS_FLOAT) * SCALE
        best = np.argmax(scaled, axis=1)
        total += int((scaled[np.arange(len(part)), best].astype(np.int64) * weights).sum())
        coefficient = MOBIUS[best] * (SCALE[best] * weights)[:, None]  # (m, 32)
        for mask in range(MASKS):
            size = int(POPCOUNT[mask])
            coefficients[size] += np.bincount(
                ranks[:, mask], weights=coefficient[:, mask], minlength=sizes[size]
            )
        if progress:
            progress(min(start + chunk, n), n)
    counts = [
        np.rint(c).astype(np.int64) @ h
        for c, h in zip(coefficients[:5], standard.hist, strict=True)
    ]
    counts.append(
        np.bincount(
            standard.hand_class,
            weights=coefficients[5],
            minlength=standard.classes.count,
        )
        .round()
        .astype(np.int64)
    )
    per_class = np.sum(counts, axis=0)
    denominator = COMMON * sizes[5]
    frequencies = {
        hand: Fraction(int(per_class[i]), denominator)
        for i, hand in enumerate(standard.classes.hands)
    }
    return Analysis(paytable, Fraction(total, denominator), frequencies, n)
