"""Bots play every poker variant through the real services without an illegal action.

One table per variant, all at once, each with four bots (equity, tight, random, equity)
acting through the public TableService API (see soak.py for every check). The default suite
plays a few dozen hands per variant; `make soak` sets CROUPIER_SOAK_HANDS to thousands.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from services.bots.betting import call_or_check
from services.bots.view import BotAction, BotView, Kind
from services.games.poker import events as ev
from services.shared.eventstore import RedisEventStore
from services.table import codec
from services.table.application import table_stream

from .soak import VARIANTS, SoakReport, SoakStack, SoakTable, soak_stack

pytestmark = pytest.mark.integration

HANDS_ENV = "CROUPIER_SOAK_HANDS"
DEFAULT_HANDS = 20  # per variant in `make test`; `make soak` plays thousands
RESHUFFLE_HANDS = 8  # seven-handed draw hands, each likely to need its discards reshuffled


VARIANTS_ENV = "CROUPIER_SOAK_VARIANTS"  # e.g. "nlhe,six-card": `make soak` splits them


def hands_per_variant() -> int:
    raw = os.environ.get(HANDS_ENV, "").strip()
    return int(raw) if raw else DEFAULT_HANDS


def chosen_variants() -> tuple[str, ...]:
    raw = os.environ.get(VARIANTS_ENV, "").strip()
    chosen = tuple(v.strip() for v in raw.split(",") if v.strip()) if raw else VARIANTS
    unknown = sorted(set(chosen) - set(VARIANTS))
    if unknown:
        raise ValueError(f"{VARIANTS_ENV}: unknown {unknown}; choose from {', '.join(VARIANTS)}")
    return chosen


@pytest.fixture(scope="module")
def stack() -> Iterator[SoakStack]:
    with soak_stack() as services:
        yield services


def test_bots_play_every_variant_through_the_real_services_with_every_action_accepted(
    stack: SoakStack,
) -> None:
    hands, variants = hands_per_variant(), chosen_variants()
    tables = [SoakTable(stack, variant, hands) for variant in variants]
    reports: list[SoakReport] = []
    started = time.perf_counter()
    threads = [
        threading.Thread(target=lambda t=t: reports.append(t.run()), daemon=True) for t in tables
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    ledger_problems = stack.audit()
    reports.sort(key=lambda r: VARIANTS.index(r.variant))
    _print_summary(reports, seconds)
    for report in reports:
        assert report.refusals == [], f"{report.variant}: illegal actions: {report.refusals}"
        assert report.problems == [], f"{report.variant}: {report.problems}"
        assert report.hands >= hands, f"{report.variant}: only {report.hands} hands"
        assert report.actions > report.hands  # bots really acted: no hand was a walkover only
    assert {r.variant for r in reports} == set(variants)
    assert sum(r.showdowns_ranked for r in reports) > 0  # the evaluator service ranked hands
    assert ledger_problems == []


def test_a_seven_handed_draw_table_reshuffles_its_discards_at_the_real_dealer(
    stack: SoakStack,
) -> None:
    # Seven players of Six-Card Open Draw hold 42 cards before the draw: the stub cannot cover
    # their draws, so the discards are reshuffled (each Reshuffle named by its place in the
    # shuffle) and every hand's cards still equal the dealer's verified record.
    table = SoakTable(stack, "six-card", RESHUFFLE_HANDS, seats=7)
    report = table.run()
    assert report.refusals == [], report.refusals
    assert report.problems == [], report.problems
    assert report.hands >= RESHUFFLE_HANDS
    client = redis.Redis.from_url(stack.redis_url)
    try:
        records = RedisEventStore(client, codec.registry()).read(table_stream(table.table_id))
        events = [codec.from_message(r.message) for r in records]
    finally:
        client.close()
    reshuffled = [e for e in events if isinstance(e, ev.DiscardsReshuffled)]
    assert reshuffled, f"no reshuffle in {report.hands} seven-handed hands"


def _print_summary(reports: list[SoakReport], seconds: float) -> None:
    print(f"\nbot soak: {len(reports)} tables in parallel, {seconds:.1f} s wall")
    print(
        f"{'variant':<10} {'hands':>6} {'actions':>8} {'showdowns':>9} {'top-ups':>7} "
        f"{'illegal':>7} {'seconds':>8} {'playing':>8} {'hands/s':>7}"
    )
    for r in reports:
        print(
            f"{r.variant:<10} {r.hands:>6} {r.actions:>8} {r.showdowns_ranked:>9} "
            f"{r.top_ups:>7} {len(r.refusals):>7} {r.seconds:>8.1f} {r.play_seconds:>8.1f} "
            f"{r.hands_per_second:>7.1f}"
        )
    total = sum(r.hands for r in reports)
    illegal = sum(len(r.refusals) for r in reports)
    print(
        f"{'all':<10} {total:>6} {'':>8} {'':>9} {'':>7} {illegal:>7} {seconds:>8.1f} "
        f"{'':>8} {total / seconds:>7.1f}"
    )


class UnderMinRaiser:
    """A broken bot: raises to one chip more than the current bet (below the minimum raise)."""

    def choose(self, view: BotView, rng: random.Random) -> BotAction:
        raise_range = view.find(Kind.RAISE) or view.find(Kind.BET)
        if raise_range is not None and raise_range.min_amount > view.bet + view.to_call + 1:
            return BotAction(raise_range.kind, amount=view.bet + view.to_call + 1)
        if view.can(Kind.SHOW):
            return BotAction(Kind.SHOW)
        return call_or_check(view)


def test_the_soak_fails_on_a_bot_that_sends_an_illegal_action(stack: SoakStack) -> None:
    report = SoakTable(stack, "nlhe", hands=3, seats=2, policies={0: UnderMinRaiser()}).run()
    assert report.refusals, "an under-minimum raise was not reported"
    assert all(r.startswith("INVALID_ARGUMENT") for r in report.refusals)
    assert "raise" in report.refusals[0].lower()
    assert report.problems == []  # the SDK took the safe action instead: the hands went on
