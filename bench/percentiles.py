"""The latency percentile the benchmarks report: one definition, so their rows compare."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest rank: the sorted values' element at int(q * n), the largest for q near 1
    (p99 of 100 samples is the slowest one). NaN when there are none, so an empty row shows
    as such instead of failing the whole run."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
