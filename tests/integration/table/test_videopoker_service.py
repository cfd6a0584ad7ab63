"""VideoPokerService over real gRPC, served by the table service (with its real ledger,
dealer and Redis): the pay tables and the advisor, with clear errors for bad input."""

from __future__ import annotations

from fractions import Fraction

import grpc
import pytest

from croupier.videopoker.v1 import videopoker_pb2 as vp
from croupier.videopoker.v1 import videopoker_pb2_grpc
from services.games.videopoker.returns import RETURNS
from services.shared import auth
from services.shared.channels import connect
from tests.integration.table.conftest import KEY, Platform


def _stub(platform: Platform) -> videopoker_pb2_grpc.VideoPokerServiceStub:
    channel = connect(
        f"127.0.0.1:{platform.port}", auth.issue_token(KEY, "ann", auth.Role.PLAYER, 600)
    )
    platform.channels.append(channel)
    return videopoker_pb2_grpc.VideoPokerServiceStub(channel)


def test_the_pay_tables_and_their_exact_returns_are_listed(platform: Platform) -> None:
    listed = _stub(platform).ListPaytables(vp.ListPaytablesRequest(), timeout=30)
    by_name = {table.name: table for table in listed.paytables}
    assert set(by_name) == set(RETURNS)
    for name, table in by_name.items():
        assert Fraction(table.exact_return.fraction) == RETURNS[name].standard
        assert Fraction(table.split_exact_return.fraction) == RETURNS[name].split
    assert round(by_name["deuces-wild"].exact_return.percent, 4) == 100.7620


def test_the_advisor_answers_every_hold_of_a_hand(platform: Platform) -> None:
    request = vp.AdviseRequest(
        hand=vp.AdvisedHand(cards=["Ah", "Kh", "Qh", "Jh", "9c"], paytable="jacks-9-6", coins=5)
    )
    answer = _stub(platform).Advise(request, timeout=120)
    assert len(answer.holds) == 32
    assert list(answer.holds[0].positions) == [0, 1, 2, 3]
    values = [Fraction(hold.expected_win) for hold in answer.holds]
    assert values == sorted(values, reverse=True)
    # Holding the four to a royal, over the 47 draws: the Th a royal (4,000 coins), the other
    # eight hearts flushes (30), three tens straights (20), twelve aces to jacks a high pair (5).
    assert values[0] == Fraction(4000 + 8 * 30 + 3 * 20 + 12 * 5, 47)


@pytest.mark.parametrize(
    ("request_", "code", "says"),
    [
        (vp.AdviseRequest(), grpc.StatusCode.INVALID_ARGUMENT, "table_id"),
        (
            vp.AdviseRequest(
                hand=vp.AdvisedHand(cards=["Ah", "Kh"], paytable="jacks-9-6", coins=5)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "5 cards",
        ),
        (
            vp.AdviseRequest(
                hand=vp.AdvisedHand(cards=["Ah", "Kh", "Qh", "Jh", "9c"], paytable="x", coins=5)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "unknown pay table",
        ),
    ],
)
def test_bad_advice_requests_are_refused_clearly(
    platform: Platform, request_: vp.AdviseRequest, code: grpc.StatusCode, says: str
) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        _stub(platform).Advise(request_, timeout=30)
    assert refused.value.code() is code
    assert says in (refused.value.details() or "")
