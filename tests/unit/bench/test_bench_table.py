"""bench_table's pure parts: the players' choice, the paced schedule, the rows it runs."""

from __future__ import annotations

import asyncio
import random
import statistics

import pytest

from bench import bench_table as bt
from croupier.table.v1 import events_pb2

A = bt.A


def test_a_paced_room_offers_the_stated_hands_per_second_as_acts() -> None:
    mean = bt.mean_think_s(100, 150.0)
    # 100 tables, one Act each every `mean` seconds on average
    assert 100 / mean == pytest.approx(150.0 * bt.ACTS_PER_HAND)


def test_a_schedule_is_the_same_for_the_same_seed_and_its_mean_gap_is_the_mean_think() -> None:
    first, second = bt.Schedule(0.04, seed=7), bt.Schedule(0.04, seed=7)
    first.begin(100.0)
    second.begin(100.0)
    dues = [first.next_due() for _ in range(20_000)]
    assert dues[:50] == [second.next_due() for _ in range(50)]
    gaps = [b - a for a, b in zip([100.0, *dues], dues, strict=False)]
    assert all(gap > 0 for gap in gaps)
    assert statistics.fmean(gaps) == pytest.approx(0.04, rel=0.03)
    other = bt.Schedule(0.04, seed=8)
    other.begin(100.0)
    assert other.next_due() != dues[0]


def test_facing_a_bet_the_players_fold_call_or_raise_to_the_minimum_never_all_in() -> None:
    legal: dict[int, int] = {
        A.ACTION_FOLD: 0,
        A.ACTION_CALL: 0,
        A.ACTION_RAISE: 8,
        A.ACTION_ALL_IN: 0,
    }
    rng = random.Random(1)
    chosen = [bt.choose(rng, legal) for _ in range(2000)]
    kinds = {kind for kind, _ in chosen}
    assert kinds == {A.ACTION_FOLD, A.ACTION_CALL, A.ACTION_RAISE}
    assert all(amount == (8 if kind == A.ACTION_RAISE else 0) for kind, amount in chosen)
    raises = sum(kind == A.ACTION_RAISE for kind, _ in chosen) / len(chosen)
    assert raises == pytest.approx(0.10, abs=0.03)


def test_unopened_the_players_check_or_bet_and_take_the_only_legal_action_otherwise() -> None:
    rng = random.Random(2)
    legal: dict[int, int] = {A.ACTION_CHECK: 0, A.ACTION_BET: 2, A.ACTION_ALL_IN: 0}
    assert {bt.choose(rng, legal)[0] for _ in range(500)} == {A.ACTION_CHECK, A.ACTION_BET}
    assert bt.choose(rng, {A.ACTION_ALL_IN: 0, A.ACTION_FOLD: 0}) == (A.ACTION_FOLD, 0)
    assert bt.choose(rng, {A.ACTION_ALL_IN: 0}) == (A.ACTION_ALL_IN, 0)


def test_the_players_read_their_legal_actions_from_the_action_request() -> None:
    turn = events_pb2.ActionRequested(
        seat=3, legal_actions=["fold", "call", "raise", "all-in"], to_call=2, min_to=4
    )
    assert bt._legal(turn) == {
        A.ACTION_FOLD: 0,
        A.ACTION_CALL: 0,
        A.ACTION_RAISE: 4,
        A.ACTION_ALL_IN: 0,
    }


def test_the_full_run_keeps_the_saturated_rows_and_adds_paced_rows_at_100_tables() -> None:
    rows = bt.plan(quick=False, instances=2)
    saturated = [(m, t, w, s) for m, t, w, o, s in rows if o is None]
    assert saturated == [
        (1, 1, False, False),
        (1, 10, False, False),
        (1, 100, False, False),
        (1, 10, True, False),
        (1, 10, False, True),
        (1, 100, False, True),
        (2, 10, False, False),
        (2, 100, False, False),
    ]
    paced = [(m, t, o, s) for m, t, w, o, s in rows if o is not None]
    assert paced == [
        (1, 100, 15.0, False),
        (1, 100, 30.0, False),
        (1, 100, 150.0, False),
        (1, 100, 150.0, True),
        (2, 100, 150.0, False),
    ]
    quick = [(m, t, o) for m, t, _, o, _ in bt.plan(True, 2)]
    assert (1, 100, bt.TARGET_HANDS_PER_S) in quick


def test_a_task_that_died_of_an_error_fails_the_row_when_cancelled() -> None:
    """A crashed player would otherwise show as a row with no Acts and no errors."""

    async def crash() -> None:
        raise AttributeError("'TableServiceStub' object has no attribute 'Play'")

    async def forever() -> None:
        await asyncio.sleep(3600)

    async def scenario(crashing: bool) -> None:
        tasks = [asyncio.create_task(forever())]
        if crashing:
            tasks.append(asyncio.create_task(crash()))
        await asyncio.sleep(0.01)
        await bt._cancel(tasks)

    asyncio.run(scenario(crashing=False))  # cancelling healthy tasks is quiet
    with pytest.raises(RuntimeError, match="1 benchmark task") as failed:
        asyncio.run(scenario(crashing=True))
    assert isinstance(failed.value.__cause__, AttributeError)
