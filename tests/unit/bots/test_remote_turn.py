"""`play_turn`: one bot decision over the API. It tells its caller about every action the table
refused (the soak fails on them), decides on a view the caller just read without reading
it again, and after an ABORTED Act decides again on the view read again, in both forms."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import cast

import grpc
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.remote import Metadata, TurnResult, play_turn
from services.bots.view import BotAction, BotView, Kind


# ignore[misc]: the grpc stubs declare RpcError.details() -> str | None and Call.details() -> str,
# so no class can have both bases for mypy, though grpc's own errors do at run time.
class Refusal(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """A refused call as grpc raises it: an RpcError that is also a Call (play_turn reads
    the code only from a Call). The rest of the Call interface is never used here."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def initial_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return ()

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return False

    def cancel(self) -> bool:
        return False

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0


class FakeTable:
    """Answers GetTableView with a decision for seat 0 and refuses the first `refuse` Acts.
    Every read shows a newer version, with seat 0's stack one chip lower than the read before."""

    def __init__(self, refuse: list[Refusal]) -> None:
        self.refuse = refuse
        self.acts: list[table_pb2.ActRequest] = []
        self.view_reads = 0

    def GetTableView(  # noqa: N802 (the gRPC name)
        self,
        request: table_pb2.GetTableViewRequest,
        metadata: Metadata = (),
        timeout: float | None = None,
    ) -> table_pb2.GetTableViewResponse:
        self.view_reads += 1
        view = table_pb2.TableView(
            table_id=request.table_id,
            version=6 + self.view_reads,
            hand_number=3,
            action_number=5,
            to_act=0,
            viewer_seat=0,
            options=table_pb2.TableOptions(game=table_pb2.GAME_TEXAS_HOLDEM, big_blind=2),
            seats=[
                table_pb2.SeatView(
                    seat=0, stack=101 - self.view_reads, cards=["As", "Kd"], in_hand=True
                )
            ],
            legal_actions=[
                table_pb2.LegalAction(action=table_pb2.ACTION_CHECK),
                table_pb2.LegalAction(action=table_pb2.ACTION_FOLD),
            ],
        )
        return table_pb2.GetTableViewResponse(view=view)

    def Act(  # noqa: N802 (the gRPC name)
        self, request: table_pb2.ActRequest, metadata: Metadata = (), timeout: float | None = None
    ) -> table_pb2.ActResponse:
        self.acts.append(request)
        if self.refuse:
            raise self.refuse.pop(0)
        return table_pb2.ActResponse(version=8)

    def as_stub(self) -> table_pb2_grpc.TableServiceStub:
        # play_turn calls only GetTableView and Act, answered above with the stub's call
        # signature. A stub's methods are typed as grpc multi-callables, which are not
        # subscriptable (so not subclassable with types) at run time: the fake is cast.
        return cast(table_pb2_grpc.TableServiceStub, self)


def _always_bet(view: BotView, table: table_pb2.TableView, rng: random.Random) -> BotAction:
    return BotAction(Kind.BET, amount=10)


@pytest.mark.parametrize(
    ("code", "result", "acts"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, TurnResult.ACTED, 2),  # then the safe action
        (grpc.StatusCode.FAILED_PRECONDITION, TurnResult.STALE, 1),
    ],
)
def test_a_refused_action_is_reported_with_the_tables_words(
    code: grpc.StatusCode, result: TurnResult, acts: int
) -> None:
    table = FakeTable([Refusal(code, "bet must be between 4 and 100")])
    heard: list[str] = []
    outcome = play_turn(
        table.as_stub(), (), "t1", _always_bet, random.Random(1), "k", on_refused=heard.append
    )
    assert outcome is result and len(table.acts) == acts
    assert len(heard) == 1
    assert heard[0].startswith(code.name)
    assert "hand 3 action 5" in heard[0] and "bet must be between 4 and 100" in heard[0]


def test_an_accepted_action_reports_nothing() -> None:
    heard: list[str] = []
    outcome = play_turn(
        FakeTable([]).as_stub(),
        (),
        "t1",
        _always_bet,
        random.Random(1),
        "k",
        on_refused=heard.append,
    )
    assert outcome is TurnResult.ACTED and heard == []


def test_a_view_the_caller_just_read_is_not_read_again_unless_the_table_moved() -> None:
    table = FakeTable([])
    view = table.GetTableView(table_pb2.GetTableViewRequest(table_id="t1")).view
    play_turn(table.as_stub(), (), "t1", _always_bet, random.Random(1), "k", view=view)
    assert table.view_reads == 1 and len(table.acts) == 1
    moved = FakeTable([Refusal(grpc.StatusCode.ABORTED, "version moved")])
    view = moved.GetTableView(table_pb2.GetTableViewRequest(table_id="t1")).view
    assert play_turn(moved.as_stub(), (), "t1", _always_bet, random.Random(1), "k", view=view) is (
        TurnResult.ACTED
    )
    assert moved.view_reads == 2 and len(moved.acts) == 2  # ABORTED: look again, then act


def test_after_an_aborted_act_the_chooser_gets_the_view_read_again_in_both_forms() -> None:
    table = FakeTable([Refusal(grpc.StatusCode.ABORTED, "version moved")])
    seen: list[tuple[int, int]] = []

    def choose(view: BotView, table_view: table_pb2.TableView, rng: random.Random) -> BotAction:
        seen.append((view.stack, table_view.version))
        return BotAction(Kind.CHECK)

    first = table.GetTableView(table_pb2.GetTableViewRequest(table_id="t1")).view
    outcome = play_turn(table.as_stub(), (), "t1", choose, random.Random(1), "k", view=first)
    assert outcome is TurnResult.ACTED
    # The first attempt: the caller's view (version 7, stack 100); the second: the view read
    # after ABORTED (version 8, stack 99), the TableView as fresh as the BotView built from it.
    assert seen == [(100, 7), (99, 8)]
    assert [a.expected_version for a in table.acts] == [7, 8]
