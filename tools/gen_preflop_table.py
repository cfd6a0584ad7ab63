"""Write services/bots/preflop_table.py: every hold'em starting hand's equity before the flop.

For each of the 169 starting-hand classes (a pair, two suited or two offsuit ranks), against
1 to 9 opponents holding random hands, high only (hold'em) and high / eight-or-better low
(hold'em hi-lo), the ranking library's Monte Carlo (`services.ranking.sampling`) deals
`--samples` boards and opponents' hands (seeded: the same command writes the same file).
With 40,000 samples an entry's standard error is at most 0.0025. The equity bot reads the
table instead of dealing a few hundred trials for every pre-flop decision
(services/bots/preflop.py); tests/unit/bots/test_preflop_table.py checks entries against a
fresh Monte Carlo run.

Usage: python tools/gen_preflop_table.py [--samples N] [--seed S]   (about two minutes)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script (`python tools/gen_preflop_table.py`)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from services.bots.preflop import MAX_OPPONENTS, RANKS, hand_classes, representative
from services.ranking.sampling import Scoring, sample_equity

OUT = Path(__file__).resolve().parent.parent / "services" / "bots" / "preflop_table.py"
HEADER = '''"""Pre-flop equity of every hold'em starting hand against 1..9 random hands.

Written by tools/gen_preflop_table.py ({samples:,} Monte Carlo deals an entry, seed {seed});
do not edit. `HIGH[name][n - 1]` / `HILO[name][n - 1]`: the expected share of the pot of
the starting hand `name` (AA, AKs, AKo, ...) against n opponents, in hold'em and in hold'em
high / eight-or-better low.
"""

from typing import Final
'''


def equities(name: str, low: bool, samples: int, seed: int) -> list[float]:
    hole = representative(name)
    row = []
    for opponents in range(1, MAX_OPPONENTS + 1):
        result = sample_equity(
            [hole] + [[] for _ in range(opponents)],
            2,
            [],
            5,
            [],
            Scoring(7, low=low),
            samples=samples,
            seed=seed * 1_000 + opponents,
            max_exact=0,
        )
        row.append(round(result.players[0].equity, 4))
    return row


def render(samples: int, seed: int) -> str:
    lines = [HEADER.format(samples=samples, seed=seed)]
    for table, low in (("HIGH", False), ("HILO", True)):
        lines.append(f"{table}: Final[dict[str, tuple[float, ...]]] = {{")
        for name in hand_classes():
            values = ", ".join(f"{v:.4f}" for v in equities(name, low, samples, seed))
            lines.append(f'    "{name}": ({values}),')
        lines.append("}\n")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    OUT.write_text(render(args.samples, args.seed))
    print(f"wrote {len(hand_classes())} hands x {MAX_OPPONENTS} opponent counts x 2 games "
          f"({len(RANKS)} ranks) to {OUT.relative_to(OUT.parents[2])}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
