"""The benchmarks' one percentile definition."""

from __future__ import annotations

import math

from bench.percentiles import percentile


def test_p99_is_the_nearest_rank_so_of_100_samples_the_slowest() -> None:
    samples = [float(n) for n in range(100, 0, -1)]  # unsorted on purpose
    assert percentile(samples, 0.99) == 100.0
    assert percentile(samples, 0.50) == 51.0
    assert percentile(samples, 0.0) == 1.0
    assert percentile([3.0], 0.99) == 3.0


def test_no_samples_is_nan_not_an_error() -> None:
    assert math.isnan(percentile([], 0.99))
