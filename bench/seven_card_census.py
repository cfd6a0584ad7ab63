"""Evaluate all 133,784,560 seven-card hands and check the known category counts.

`make bench-seven` (or `python -m bench.seven_card_census`). Not part of `make test` or
`make bench`: it takes tens of seconds. Hands are generated as "two lowest cards, then every
five-card combination above them", each block evaluated by the NumPy batch path.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

from services.ranking.batch import eval7_batch
from services.ranking.values import Category

KNOWN = {
    Category.STRAIGHT_FLUSH: 41_584,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.ONE_PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}
DISTINCT_SEVEN_CARD_CLASSES = 4_824


def _fives_above() -> dict[int, np.ndarray]:
    """For each k, every five-card combination of the cards k..51 (uint8 rows)."""
    out = {}
    for k in range(2, 48):
        flat = itertools.chain.from_iterable(itertools.combinations(range(k, 52), 5))
        count = len(range(k, 52))
        rows = count * (count - 1) * (count - 2) * (count - 3) * (count - 4) // 120
        out[k] = np.fromiter(flat, dtype=np.uint8, count=rows * 5).reshape(-1, 5)
    return out


def main() -> int:
    start = time.perf_counter()
    fives = _fives_above()
    built = time.perf_counter()
    counts = np.zeros(32, dtype=np.int64)
    seen = np.zeros(1 << 25, dtype=bool)
    evaluated = 0
    eval_seconds = 0.0
    for low in range(46):
        for second in range(low + 1, 47):
            rest = fives[second + 1]
            hands = np.empty((len(rest), 7), dtype=np.uint8)
            hands[:, 0] = low
            hands[:, 1] = second
            hands[:, 2:] = rest
            t = time.process_time()
            values = eval7_batch(hands)
            eval_seconds += time.process_time() - t
            counts += np.bincount(values >> 20, minlength=32)
            seen[values] = True
            evaluated += len(values)
    total = time.perf_counter() - start
    found = {Category(s // 2): int(n) for s, n in enumerate(counts) if n}
    classes = int(seen.sum())
    ok = found == KNOWN and evaluated == 133_784_560 and classes == DISTINCT_SEVEN_CARD_CLASSES
    for category in sorted(KNOWN, reverse=True):
        mark = "ok" if found.get(category) == KNOWN[category] else "WRONG"
        print(f"{category.name:16} {found.get(category, 0):>12,} {KNOWN[category]:>12,} {mark}")
    print(f"hands evaluated   {evaluated:,}; distinct values {classes:,} (known 4,824)")
    print(
        f"batch evaluation {eval_seconds:.1f} CPU s = {evaluated / eval_seconds / 1e6:.1f} M "
        f"hands/s on one core; generating combinations {built - start:.1f} s; "
        f"total {total:.1f} s wall"
    )
    print("all category counts match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
