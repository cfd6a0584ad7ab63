import grpc
import pytest

from croupier.evaluator.v1 import evaluator_pb2 as pb
from croupier.evaluator.v1 import evaluator_pb2_grpc
from services.shared import auth
from tests.integration.evaluator.conftest import stub_for

pytestmark = pytest.mark.integration


def test_evaluate_returns_category_cards_and_description(
    evaluator: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    response = evaluator.Evaluate(
        pb.EvaluateRequest(hole_cards=["Qh", "4d"], board_cards=["Qd", "Qc", "4s", "2c", "9h"])
    )
    assert response.high.category == pb.CATEGORY_FULL_HOUSE
    assert response.high.description == "Full house, queens full of fours"
    assert sorted(response.high.cards) == sorted(["Qh", "Qd", "Qc", "4d", "4s"])
    assert not response.HasField("low")


def test_evaluate_with_low_and_deuces_wild(
    evaluator: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    response = evaluator.Evaluate(
        pb.EvaluateRequest(
            hole_cards=["As", "Ah", "Ad", "Ac", "2c"],
            rules=pb.HandRules(wild_ranks=["2"]),
            include_low=True,
        )
    )
    assert response.high.description == "Five of a kind, aces"
    assert response.high.wild_substitutions[0].wild_card == "2c"
    assert not response.HasField("low")  # four aces and a wild deuce make no low
    low = evaluator.Evaluate(
        pb.EvaluateRequest(hole_cards=["8c", "6d", "4h", "2s", "As", "Kd", "Kc"], include_low=True)
    )
    assert low.low.description == "8-6-4-2-A low"


def test_compare_names_tied_winners(evaluator: evaluator_pb2_grpc.EvaluatorServiceStub) -> None:
    response = evaluator.Compare(
        pb.CompareRequest(
            hands=[
                pb.SeatCards(seat=1, hole_cards=["Tc", "2d"]),
                pb.SeatCards(seat=2, hole_cards=["Th", "4c"]),
                pb.SeatCards(seat=3, hole_cards=["9d", "9c"]),
            ],
            board_cards=["Ah", "Kd", "Qc", "Js", "3h"],
        )
    )
    assert list(response.winners) == [1, 2]
    assert response.results[0].description == "Straight, ace high"


def test_showdown_hi_lo_splits(evaluator: evaluator_pb2_grpc.EvaluatorServiceStub) -> None:
    response = evaluator.Showdown(
        pb.ShowdownRequest(
            split=pb.POT_SPLIT_HIGH_LOW_EIGHT_OR_BETTER,
            board_cards=["Ac", "4d", "5h", "Kc", "Kd"],
            seats=[
                pb.SeatCards(seat=1, hole_cards=["2c", "3s"]),
                pb.SeatCards(seat=2, hole_cards=["Kh", "5s"]),
            ],
        )
    )
    assert list(response.high_winners) == [2]
    assert list(response.low_winners) == [1]
    assert response.seats[0].low.description == "5-4-3-2-A low"


def test_equity_is_exact_on_the_turn_and_seeded_otherwise(
    evaluator: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    players = [
        pb.SeatCards(seat=1, hole_cards=["Ah", "Kh"]),
        pb.SeatCards(seat=2, hole_cards=["Qc", "Qd"]),
    ]
    exact = evaluator.Equity(
        pb.EquityRequest(
            game=pb.EQUITY_GAME_HOLDEM, players=players, board_cards=["2h", "9h", "Qs", "3c"]
        )
    )
    assert exact.exact and exact.trials == 44
    assert exact.players[0].equity + exact.players[1].equity == pytest.approx(1.0)
    request = pb.EquityRequest(
        game=pb.EQUITY_GAME_HOLDEM, players=players, max_exact_deals=1, samples=2000, seed=5
    )
    first, second = evaluator.Equity(request), evaluator.Equity(request)
    assert not first.exact and first.players[0].standard_error > 0
    assert first == second


def test_evaluate_many_answers_in_order(evaluator: evaluator_pb2_grpc.EvaluatorServiceStub) -> None:
    response = evaluator.EvaluateMany(
        pb.EvaluateManyRequest(
            requests=[
                pb.EvaluateRequest(hole_cards=["As", "Ks", "Qs", "Js", "Ts"]),
                pb.EvaluateRequest(hole_cards=["2c", "3d", "4h", "5s", "7c"]),
            ]
        )
    )
    assert [r.high.description for r in response.responses] == ["Royal flush", "High card, seven"]


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        (pb.EvaluateRequest(hole_cards=["As", "Kx", "Qs", "Js", "Ts"]), "'Kx'"),
        (pb.EvaluateRequest(hole_cards=["As", "Ks", "Qs", "Js", "As"]), "duplicate card As"),
        (pb.EvaluateRequest(hole_cards=["As", "Ks", "Qs", "Js"]), "got 4"),
        (pb.EvaluateRequest(hole_cards=["As", "Ks"], board_cards=["As", "2c", "3d"]), "As"),
    ],
)
def test_bad_cards_are_invalid_argument_naming_the_card(
    evaluator: evaluator_pb2_grpc.EvaluatorServiceStub, request_: pb.EvaluateRequest, named: str
) -> None:
    with pytest.raises(grpc.RpcError) as error:
        evaluator.Evaluate(request_)
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert named in (error.value.details() or "")


def test_duplicate_across_seats_is_invalid_argument(
    evaluator: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    with pytest.raises(grpc.RpcError) as error:
        evaluator.Showdown(
            pb.ShowdownRequest(
                board_cards=["Kc", "Qd", "9h", "9c", "2d"],
                seats=[
                    pb.SeatCards(seat=1, hole_cards=["As", "3s"]),
                    pb.SeatCards(seat=2, hole_cards=["As", "Js"]),
                ],
            )
        )
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "duplicate card As" in (error.value.details() or "")


def test_any_authenticated_role_may_call(evaluator_address: str) -> None:
    for role in auth.Role:
        stub = stub_for(evaluator_address, role, f"caller-{role.value}")
        response = stub.Evaluate(pb.EvaluateRequest(hole_cards=["As", "Ks", "Qs", "Js", "9s"]))
        assert response.high.category == pb.CATEGORY_FLUSH


def test_unauthenticated_calls_are_refused(
    anonymous: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    with pytest.raises(grpc.RpcError) as error:
        anonymous.Evaluate(pb.EvaluateRequest(hole_cards=["As", "Ks", "Qs", "Js", "9s"]))
    assert error.value.code() is grpc.StatusCode.UNAUTHENTICATED
