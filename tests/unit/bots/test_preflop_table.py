"""The pre-flop equity table: complete, consistent, and what a fresh Monte Carlo run says."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from services.bots import preflop, preflop_table
from services.bots.ranker import EvaluatorRanker
from services.bots.strength import equity
from services.bots.view import BotView, Kind, Legal, Variant
from services.ranking.sampling import Scoring, sample_equity

TABLES = {"hold'em": (preflop_table.HIGH, False), "hi-lo": (preflop_table.HILO, True)}
TABLE_SAMPLES = 40_000  # what tools/gen_preflop_table.py deals an entry (its docstring)


def _text(card: int) -> str:
    return preflop.RANKS[card % 13] + "cdhs"[card // 13]


def test_every_class_and_opponent_count_is_there() -> None:
    names = preflop.hand_classes()
    assert len(names) == len(set(names)) == 169
    for rows, _ in TABLES.values():
        assert sorted(rows) == sorted(names)
        for row in rows.values():
            assert len(row) == preflop.MAX_OPPONENTS
            assert all(0.0 < share < 1.0 for share in row)


@pytest.mark.parametrize("game", sorted(TABLES))
def test_more_opponents_never_leave_a_hand_more(game: str) -> None:
    rows, _ = TABLES[game]
    for name, row in rows.items():
        for fewer, more in itertools.pairwise(row):
            assert more <= fewer + 0.005, (name, row)  # beyond the entries' noise
    heads_up = {name: row[0] for name, row in rows.items()}
    assert max(heads_up, key=heads_up.__getitem__) == "AA"


def test_a_class_and_its_representative_cards_agree() -> None:
    for name in preflop.hand_classes():
        assert preflop.class_of(tuple(_text(c) for c in preflop.representative(name))) == name
    assert preflop.class_of(("Kh", "Ah")) == "AKs"
    assert preflop.class_of(("2c", "7d")) == "72o"


@pytest.mark.parametrize("game", sorted(TABLES))
def test_entries_match_a_fresh_monte_carlo_run(game: str) -> None:
    rows, low = TABLES[game]
    rng = random.Random(game)
    names = preflop.hand_classes()
    for _ in range(6):
        name, opponents = rng.choice(names), rng.randint(1, preflop.MAX_OPPONENTS)
        fresh = sample_equity(
            [preflop.representative(name)] + [[] for _ in range(opponents)],
            2, [], 5, [], Scoring(7, low=low),
            samples=20_000, seed=rng.getrandbits(32), max_exact=0,
        ).players[0]  # fmt: skip
        # Any suits of the class: its representative's suits are the table's, others equal.
        error = fresh.standard_error * math.sqrt(1 + 20_000 / TABLE_SAMPLES)
        assert abs(rows[name][opponents - 1] - fresh.equity) < 4.5 * error + 1e-4, (name, opponents)


def _view(variant: Variant, hole: tuple[str, ...], board: tuple[str, ...] = ()) -> BotView:
    return BotView(variant, 0, hole, board, (Legal(Kind.CHECK),), opponents=3)


def test_the_equity_bot_reads_the_table_before_the_flop_only(ranker: EvaluatorRanker) -> None:
    hole = ("Kd", "Ks")
    before = _view(Variant.HOLDEM, hole)
    assert preflop.lookup(before) == preflop_table.HIGH["KK"][2]
    assert equity(before, ranker, random.Random(1), 200) == preflop_table.HIGH["KK"][2]
    assert preflop.lookup(_view(Variant.HOLDEM_HILO, hole)) == preflop_table.HILO["KK"][2]
    assert preflop.lookup(_view(Variant.HOLDEM, hole, ("2c", "7d", "9h"))) is None
    assert preflop.lookup(_view(Variant.SPIT, ("Kd", "Ks", "2c", "3c"))) is None
