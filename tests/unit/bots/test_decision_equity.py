"""A decision's equity stops dealing once the decision is clear, and only then."""

from __future__ import annotations

import math
import random

from services.bots.ranker import EvaluatorRanker
from services.bots.strength import ROUND, decision_equity, keep_equities

from .views import facing_bet

SAMPLES = 170


def _rounds_consumed(seed: int, after: random.Random) -> int:
    """How many rounds (one 32-bit seed each) a run drew from a generator seeded `seed`."""
    probe = random.Random(seed)
    for rounds in range(1, 100):
        probe.getrandbits(32)
        if probe.getstate() == after.getstate():
            return rounds
    raise AssertionError("the generator moved by something other than whole rounds")


def test_a_clear_decision_takes_one_round(ranker: EvaluatorRanker) -> None:
    view = facing_bet(["7c", "2d"], ["As", "Kh", "Qd"], to_call=100, pot=120, opponents=2)
    rng = random.Random(3)
    share = decision_equity(view, ranker, rng, SAMPLES, (0.7, 0.9))
    assert _rounds_consumed(3, rng) == 1
    assert share == keep_equities(view, [view.hole], random.Random(3), ROUND)[0]


def test_a_decision_on_a_line_takes_every_deal(ranker: EvaluatorRanker) -> None:
    view = facing_bet(["Ah", "Kh"], ["2h", "7h", "Qc"], opponents=3)
    estimate = keep_equities(view, [view.hole], random.Random(99), 4000)[0]
    rng = random.Random(4)
    share = decision_equity(view, ranker, rng, SAMPLES, (estimate,))
    assert _rounds_consumed(4, rng) == math.ceil(SAMPLES / ROUND)
    assert abs(share - estimate) < 4 * 0.5 / math.sqrt(SAMPLES)


def test_preflop_hold_em_reads_the_table_and_deals_nothing(ranker: EvaluatorRanker) -> None:
    view = facing_bet(["As", "Ad"])
    rng = random.Random(5)
    before = rng.getstate()
    assert 0.84 <= decision_equity(view, ranker, rng, SAMPLES, (0.5,)) <= 0.86
    assert rng.getstate() == before
