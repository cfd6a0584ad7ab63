"""VideoPokerService's answers (the servicer called in process; the integration tests call
it over gRPC)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from croupier.videopoker.v1 import videopoker_pb2 as pb
from services.shared import errors
from services.table.games.videopoker_service import DealtRound, VideoPokerServicer
from services.videopoker_analysis.advisor import advise

CONTEXT: Any = None


def _request(cards: list[str], paytable: str = "jacks-9-6", coins: int = 5) -> pb.AdviseRequest:
    return pb.AdviseRequest(hand=pb.AdvisedHand(cards=cards, paytable=paytable, coins=coins))


def test_advise_answers_every_hold_exactly_best_first() -> None:
    cards = ["Ah", "Kh", "Qh", "Jh", "9c"]
    answer = VideoPokerServicer().Advise(_request(cards), CONTEXT)
    expected = advise(cards, "jacks-9-6", 5)
    assert len(answer.holds) == 32 and answer.round == 0
    assert list(answer.holds[0].positions) == [0, 1, 2, 3]
    for hold, exact in zip(answer.holds, expected.holds, strict=True):
        assert tuple(hold.positions) == exact.positions
        assert Fraction(hold.expected_win) == exact.expected_win
        assert hold.expected_return == pytest.approx(float(exact.expected_win / 5))


@pytest.mark.slow  # builds the Split Card tables (seconds of CPU)
def test_advise_reads_the_round_in_play_at_a_table() -> None:
    def read(table_id: str) -> DealtRound:
        assert table_id == "vp-1"
        return DealtRound(7, ("7c|7c", "Kd", "Qh", "7d", "2s"), "jacks-9-6", 10)

    answer = VideoPokerServicer(read).Advise(pb.AdviseRequest(table_id="vp-1"), CONTEXT)
    assert answer.round == 7 and answer.coins == 10 and answer.cards[0] == "7c|7c"
    assert set(answer.holds[0].positions) >= {0, 3}  # the split seven and the other seven


@pytest.mark.parametrize(
    ("request_", "error", "says"),
    [
        (pb.AdviseRequest(), errors.InvalidArgument, r"table_id .* or hand"),
        (_request(["Ah", "Kh"]), errors.InvalidArgument, "5 cards"),
        (_request(["Ah", "Kh", "Qh", "Jh", "Ah"]), errors.InvalidArgument, "twice"),
        (
            _request(["Ah", "Kh", "Qh", "Jh", "9c"], "jacks-8-5"),
            errors.InvalidArgument,
            "pay table",
        ),
        (_request(["Ah", "Kh", "Qh", "Jh", "9c"], coins=7), errors.InvalidArgument, "coins"),
        (_request(["Ah|Kh", "Kd", "Qh", "Jh", "9c"]), errors.InvalidArgument, "10 coins"),
        (pb.AdviseRequest(table_id="vp-1"), errors.FailedPrecondition, "reads no tables"),
    ],
)
def test_advise_refuses_what_it_cannot_read(
    request_: pb.AdviseRequest, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        VideoPokerServicer().Advise(request_, CONTEXT)


def test_list_paytables_lists_every_pay_table() -> None:
    listed = VideoPokerServicer().ListPaytables(pb.ListPaytablesRequest(), CONTEXT)
    assert [t.name for t in listed.paytables] == [
        "jacks-9-6",
        "deuces-wild",
        "double-double-bonus-9-6",
    ]


def test_a_tables_round_is_advised_on_only_while_its_cards_show() -> None:
    from services.games import contract as c
    from services.games.videopoker import Deal
    from services.table.games.videopoker_service import dealt_round
    from tests.unit.games.videopoker.machine import Machine

    machine = Machine(decks={"deal": ("Ah", "Kh", "Qh", "Jh", "2c")})
    machine.sit(1000)
    with pytest.raises(errors.FailedPrecondition, match="plays poker, not video poker"):
        dealt_round("t1", "poker", object())
    with pytest.raises(errors.FailedPrecondition, match="deal first"):
        dealt_round("t1", "video-poker", machine.state)
    machine.do(c.Move(0, Deal(3, 5, "jacks-9-6"), by="alice"))
    with pytest.raises(errors.FailedPrecondition, match="is betting"):
        dealt_round("t1", "video-poker", machine.state)
    machine.run()
    shown = dealt_round("t1", "video-poker", machine.state)
    assert shown == DealtRound(1, ("Ah", "Kh", "Qh", "Jh", "2c"), "jacks-9-6", 5)
