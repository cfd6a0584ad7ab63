"""The Equity use case's CPU budget, on a clock the test controls."""

import itertools
from collections.abc import Callable

import pytest

from croupier.evaluator.v1 import evaluator_pb2 as pb
from services.evaluator.application import run_equity
from services.ranking.sampling import CHUNK
from services.shared.errors import ResourceExhausted

ACES_V_RANDOM = [pb.SeatCards(seat=1, hole_cards=["Ah", "As"]), pb.SeatCards(seat=2)]


def _clock(step: float) -> Callable[[], float]:
    """A CPU clock that moves `step` seconds each time it is read."""
    ticks = itertools.count(0.0, step)
    return lambda: next(ticks)


def _request(
    budget_ms: int = 0, samples: int = 0, players: list[pb.SeatCards] = ACES_V_RANDOM
) -> pb.EquityRequest:
    return pb.EquityRequest(
        game=pb.EQUITY_GAME_HOLDEM, players=players, samples=samples, cpu_budget_ms=budget_ms
    )


def test_the_server_limit_stops_monte_carlo_after_the_chunk_that_spent_it() -> None:
    # Read once at the start, then after each chunk: 600 ms a chunk, a 1,000 ms limit.
    response = run_equity(_request(samples=100_000), 1_000, _clock(0.6))
    assert response.budget_exhausted and response.trials == 2 * CHUNK


def test_a_request_may_ask_for_less_than_the_server_allows_but_not_more() -> None:
    smaller = run_equity(_request(500, samples=100_000), 10_000, _clock(0.6))
    assert smaller.budget_exhausted and smaller.trials == CHUNK
    capped = run_equity(_request(60_000, samples=100_000), 1_000, _clock(0.6))
    assert capped.budget_exhausted and capped.trials == 2 * CHUNK


def test_within_budget_the_answer_is_complete() -> None:
    response = run_equity(_request(samples=40_000), 1_000, lambda: 0.0)
    assert not response.budget_exhausted and response.trials == 40_000


def test_an_exact_run_out_of_budget_is_refused_with_what_to_do() -> None:
    players = [
        pb.SeatCards(seat=1, hole_cards=["Ah", "As"]),
        pb.SeatCards(seat=2, hole_cards=["Kd", "Kc"]),
    ]
    with pytest.raises(ResourceExhausted, match="set max_exact_deals below 1,712,304"):
        run_equity(_request(players=players), 1_000, _clock(1.0))
