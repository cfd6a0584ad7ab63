"""Chi-square helpers for the shuffle statistics (numpy counting; no scipy on the platform)."""

import hashlib
import math

import numpy as np


def _upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): series below a + 1, continued fraction above."""
    if x < a + 1:
        term = total = 1.0 / a
        denominator = a
        while abs(term) > abs(total) * 1e-15:
            denominator += 1
            term *= x / denominator
            total += term
        return 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a))
    # Modified Lentz evaluation of the continued fraction for Gamma(a, x).
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    i = 0
    while True:
        i += 1
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X ~ chi-square(dof)."""
    if statistic <= 0:
        return 1.0
    return min(1.0, max(0.0, _upper_regularized_gamma(dof / 2, statistic / 2)))


def card_position_counts(orders: np.ndarray) -> np.ndarray:
    """counts[card, position] from an (N, n) array of card indices in dealing order."""
    shuffles, n = orders.shape
    counts = np.zeros((n, n), dtype=np.int64)
    np.add.at(counts, (orders, np.broadcast_to(np.arange(n), orders.shape)), 1)
    assert counts.sum() == shuffles * n
    return counts


def per_card_p_values(counts: np.ndarray) -> list[float]:
    """For each card, the chi-square p-value of 'uniform over positions' (dof n-1)."""
    n = counts.shape[1]
    expected = counts.sum(axis=1, keepdims=True) / n
    statistics = ((counts - expected) ** 2 / expected).sum(axis=1)
    return [chi_square_sf(float(s), n - 1) for s in statistics]


def seeds(count: int, label: str) -> list[bytes]:
    """Reproducible 32-byte server seeds for statistics runs (never used outside tests)."""
    return [hashlib.sha256(f"{label}/{i}".encode()).digest() for i in range(count)]


def card_position_p_value(counts: np.ndarray) -> float:
    """The p-value of the whole card x position table built from N whole permutations.

    Each row of such a table is multinomial over positions, but rows and columns both sum to
    N, so Pearson's statistic over all n^2 cells has mean n(n-1), not (n-1)^2: it follows
    (n/(n-1)) chi-square((n-1)^2). Unscaled, a perfect 52-card shuffle would fail a 0.001
    test about 1% of the time; scaled by (n-1)/n it fails 0.1% of the time, as it should.
    """
    n = counts.shape[1]
    expected = counts.sum() / (n * n)
    statistic = float(((counts - expected) ** 2 / expected).sum())
    return chi_square_sf(statistic * (n - 1) / n, (n - 1) ** 2)
