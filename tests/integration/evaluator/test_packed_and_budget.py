"""EvaluatePacked and the Equity CPU budget through a real server over loopback."""

import random

import grpc
import numpy as np
import pytest

from croupier.evaluator.v1 import evaluator_pb2 as pb
from croupier.evaluator.v1 import evaluator_pb2_grpc
from services.games.cards import card_from_index
from services.ranking import best_high, best_low

pytestmark = pytest.mark.integration
Stub = evaluator_pb2_grpc.EvaluatorServiceStub


@pytest.mark.parametrize("size", [5, 6, 7, 8, 9])
def test_packed_values_equal_the_evaluate_answers(evaluator: Stub, size: int) -> None:
    rng = random.Random(size)
    hands = [rng.sample(range(52), size) for _ in range(300)]
    response = evaluator.EvaluatePacked(
        pb.EvaluatePackedRequest(
            cards=bytes(c for hand in hands for c in hand), cards_per_hand=size, include_low=True
        )
    )
    values = np.frombuffer(response.values, dtype="<u4").tolist()
    lows = np.frombuffer(response.low_values, dtype="<u4").tolist()
    assert response.hands == len(hands) == len(values) == len(lows)
    for hand, value, low in zip(hands, values, lows, strict=True):
        cards = [card_from_index(c) for c in hand]
        assert value == best_high(cards).value
        expected_low = best_low(cards)
        assert low == (expected_low.value if expected_low else 0)


def test_packed_without_low_sends_no_low_values(evaluator: Stub) -> None:
    response = evaluator.EvaluatePacked(
        pb.EvaluatePackedRequest(cards=bytes(range(7)), cards_per_hand=7)
    )
    assert response.hands == 1 and response.low_values == b""
    assert (
        int.from_bytes(response.values, "little")
        == best_high([card_from_index(c) for c in range(7)]).value
    )


@pytest.mark.parametrize(
    ("cards", "size", "message"),
    [
        (bytes(range(7)), 4, "cards_per_hand: 4; a hand has 5 to 9 cards"),
        (bytes(range(8)), 7, "8 bytes is not a whole number of 7-card hands"),
        (bytes([0, 1, 2, 3, 4, 60, 6]), 7, "byte 5 (hand 0) is 60; card numbers are 0..51"),
        (bytes(range(7)) + bytes([9, 10, 11, 9, 12, 13, 14]), 7, "hand 1 holds Jc twice"),
        (bytes(5 * 100_001), 5, "at most 100,000 hands per call, got 100,001"),
    ],
)
def test_bad_packed_requests_are_invalid_argument_saying_what_is_wrong(
    evaluator: Stub, cards: bytes, size: int, message: str
) -> None:
    with pytest.raises(grpc.RpcError) as error:
        evaluator.EvaluatePacked(pb.EvaluatePackedRequest(cards=cards, cards_per_hand=size))
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert message in (error.value.details() or "")


def _players(*hands: list[str]) -> list[pb.SeatCards]:
    return [pb.SeatCards(seat=i + 1, hole_cards=h) for i, h in enumerate(hands)]


def test_monte_carlo_out_of_budget_answers_with_the_deals_it_made(evaluator: Stub) -> None:
    request = pb.EquityRequest(
        game=pb.EQUITY_GAME_HOLDEM,
        players=_players(["Ah", "As"], [], [], [], [], []),
        samples=1_000_000,
        seed=4,
        cpu_budget_ms=1,
    )
    response = evaluator.Equity(request)
    assert response.budget_exhausted and not response.exact
    assert 0 < response.trials < 1_000_000
    aces = response.players[0]
    assert aces.standard_error > 0 and abs(aces.equity - 0.49) < 8 * aces.standard_error + 0.02
    small = pb.EquityRequest(
        game=pb.EQUITY_GAME_HOLDEM, players=_players(["Ah", "As"], []), samples=2_000
    )
    full = evaluator.Equity(small)
    assert not full.budget_exhausted and full.trials == 2_000


def test_exact_equity_out_of_budget_is_resource_exhausted(evaluator: Stub) -> None:
    request = pb.EquityRequest(
        game=pb.EQUITY_GAME_HOLDEM, players=_players(["Ah", "As"], ["Kd", "Kc"]), cpu_budget_ms=1
    )
    with pytest.raises(grpc.RpcError) as error:
        evaluator.Equity(request)
    assert error.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "exact equity over 1,712,304 deals needs more than the 1 ms CPU budget" in (
        error.value.details() or ""
    )
