"""Seeded random play: complete games between random players (who also race with stale
screens, let deadlines pass and send moves at random) for every variation, every invariant
checked as each event is folded in (simulation.py says which).

The unit tier plays a few games per variation with every check on every state; the `slow`
tier plays more (`CROUPIER_SPIT_GAMES` scales it: `make soak-spit` plays 2,000 per variation).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.games.spit import SpitConfig, Variation
from tests.unit.games.spit.simulation import Report, play_game

CONFIGS = {
    "spit": SpitConfig(),
    "four-piles": SpitConfig(piles=4),
    "alternating-colours": SpitConfig(alternating_colours=True),
    "bicycle": SpitConfig(variation=Variation.BICYCLE),
    "speed": SpitConfig(variation=Variation.SPEED, stake=25),
}
# Games per variation in the slow tier: the cheap variations play more for the same time.
SLOW_GAMES = {"spit": 50, "four-piles": 30, "alternating-colours": 50, "bicycle": 150}
SLOW_DEFAULT = 300


def slow_games(name: str) -> int:
    override = os.environ.get("CROUPIER_SPIT_GAMES")
    return int(override) if override else SLOW_GAMES.get(name, SLOW_DEFAULT)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_games_conserve_cards_hide_cards_replay_and_terminate(name: str) -> None:
    report = Report()
    for seed in range(8):
        play_game(CONFIGS[name], seed, report)
    assert report.games == 8
    assert report.refused > 0  # the random moves and stale races were exercised
    assert sum(report.results.values()) == 8


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(list(CONFIGS)),
    seed=st.integers(0, 2**32 - 1),
    race_rate=st.floats(0, 0.6),
    timeout_rate=st.floats(0, 0.3),
    junk_rate=st.floats(0, 0.3),
)
def test_any_mix_of_races_timeouts_and_bad_moves_keeps_every_invariant(
    name: str, seed: int, race_rate: float, timeout_rate: float, junk_rate: float
) -> None:
    report = Report()
    play_game(CONFIGS[name], seed, report, race_rate, timeout_rate, junk_rate)
    assert report.games == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_many_seeded_random_games_keep_every_invariant(name: str) -> None:
    games = slow_games(name)
    report = Report()
    for seed in range(1000, 1000 + games):
        play_game(CONFIGS[name], seed, report, view_every=10)
    assert report.games == games
    print(
        f"{name}: {report.games} games, {report.deals} deals, {report.commands} commands, "
        f"{report.events} events, {report.refused} refused, {report.races_won} races won "
        f"after losing the top card, results {dict(report.results)}"
    )
