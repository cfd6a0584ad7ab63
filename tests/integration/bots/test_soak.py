"""Bots play every poker variant through the real services without an illegal action.

One table per variant, all at once, each with four bots (equity, tight, random, equity)
acting through the public TableService API (see soak.py for every check). The default suite
plays a few dozen hands per variant; `make soak` sets CROUPIER_SOAK_HANDS to thousands.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from .soak import VARIANTS, SoakReport, SoakTable, soak_stack

pytestmark = pytest.mark.integration

HANDS_ENV = "CROUPIER_SOAK_HANDS"
DEFAULT_HANDS = 25  # per variant in `make test`; `make soak` plays thousands


def hands_per_variant() -> int:
    raw = os.environ.get(HANDS_ENV, "").strip()
    return int(raw) if raw else DEFAULT_HANDS


def test_bots_play_every_variant_through_the_real_services_with_every_action_accepted():
    hands = hands_per_variant()
    with soak_stack() as stack:
        tables = [SoakTable(stack, variant, hands) for variant in VARIANTS]
        reports: list[SoakReport] = []
        started = time.perf_counter()
        threads = [
            threading.Thread(target=lambda t=t: reports.append(t.run()), daemon=True)
            for t in tables
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
    assert {r.variant for r in reports} == set(VARIANTS)
    assert sum(r.showdowns_ranked for r in reports) > 0  # the evaluator service ranked hands
    assert ledger_problems == []


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
