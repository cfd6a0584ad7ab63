"""`play_turn`: one bot decision over the API. It tells its caller about every action the table
refused (the soak fails on them) and decides on a view the caller just read without reading
it again."""

from __future__ import annotations

import random

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.bots.remote import TurnResult, play_turn
from services.bots.view import BotAction, Kind


class Refusal(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class FakeTable:
    """Answers GetTableView with a decision for seat 0 and refuses the first `refuse` Acts."""

    def __init__(self, refuse: list[Refusal]) -> None:
        self.refuse = refuse
        self.acts: list[table_pb2.ActRequest] = []
        self.view_reads = 0

    def GetTableView(self, request, metadata=(), timeout=None):  # noqa: N802 (the gRPC name)
        self.view_reads += 1
        view = table_pb2.TableView(
            table_id=request.table_id,
            version=7,
            hand_number=3,
            action_number=5,
            to_act=0,
            viewer_seat=0,
            options=table_pb2.TableOptions(game=table_pb2.GAME_TEXAS_HOLDEM, big_blind=2),
            seats=[table_pb2.SeatView(seat=0, stack=100, cards=["As", "Kd"], in_hand=True)],
            legal_actions=[
                table_pb2.LegalAction(action=table_pb2.ACTION_CHECK),
                table_pb2.LegalAction(action=table_pb2.ACTION_FOLD),
            ],
        )
        return table_pb2.GetTableViewResponse(view=view)

    def Act(self, request, metadata=(), timeout=None):  # noqa: N802 (the gRPC name)
        self.acts.append(request)
        if self.refuse:
            raise self.refuse.pop(0)
        return table_pb2.ActResponse(version=8)


def _always_bet(view, rng):
    return BotAction(Kind.BET, amount=10)


@pytest.mark.parametrize(
    ("code", "result", "acts"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, TurnResult.ACTED, 2),  # then the safe action
        (grpc.StatusCode.FAILED_PRECONDITION, TurnResult.STALE, 1),
    ],
)
def test_a_refused_action_is_reported_with_the_tables_words(code, result, acts):
    table = FakeTable([Refusal(code, "bet must be between 4 and 100")])
    heard: list[str] = []
    outcome = play_turn(
        table, (), "t1", _always_bet, random.Random(1), "k", on_refused=heard.append
    )
    assert outcome is result and len(table.acts) == acts
    assert len(heard) == 1
    assert heard[0].startswith(code.name)
    assert "hand 3 action 5" in heard[0] and "bet must be between 4 and 100" in heard[0]


def test_an_accepted_action_reports_nothing():
    heard: list[str] = []
    outcome = play_turn(
        FakeTable([]), (), "t1", _always_bet, random.Random(1), "k", on_refused=heard.append
    )
    assert outcome is TurnResult.ACTED and heard == []


def test_a_view_the_caller_just_read_is_not_read_again_unless_the_table_moved():
    table = FakeTable([])
    view = table.GetTableView(table_pb2.GetTableViewRequest(table_id="t1")).view
    play_turn(table, (), "t1", _always_bet, random.Random(1), "k", view=view)
    assert table.view_reads == 1 and len(table.acts) == 1
    moved = FakeTable([Refusal(grpc.StatusCode.ABORTED, "version moved")])
    view = moved.GetTableView(table_pb2.GetTableViewRequest(table_id="t1")).view
    assert play_turn(moved, (), "t1", _always_bet, random.Random(1), "k", view=view) is (
        TurnResult.ACTED
    )
    assert moved.view_reads == 2 and len(moved.acts) == 2  # ABORTED: look again, then act
