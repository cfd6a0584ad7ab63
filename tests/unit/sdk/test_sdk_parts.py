"""The client SDK's own parts: status codes to exceptions, which failures are retried, the
backoff, moves routed to their game's member of ActRequest.move, and key namespaces."""

from __future__ import annotations

import random

import grpc
import pytest

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from services.sdk import (
    Aborted,
    ClientSettings,
    FailedPrecondition,
    InvalidArgument,
    LedgerClient,
    RetryPolicy,
    Unavailable,
    act_request,
    poker_move,
    poker_options,
)
from services.sdk.connection import Caller, caller_of
from services.sdk.errors import CroupierError, from_status_number
from services.shared import auth


def test_a_play_error_becomes_the_exception_of_its_status_with_the_message() -> None:
    error = from_status_number(9, "it is seat 2's turn", "TableService.Play")
    assert isinstance(error, FailedPrecondition)
    assert error.message == "it is seat 2's turn"
    assert str(error) == "TableService.Play: FAILED_PRECONDITION: it is seat 2's turn"
    assert isinstance(from_status_number(3, "bad"), InvalidArgument)
    assert type(from_status_number(999, "?")) is CroupierError


def test_unavailable_is_retried_and_aborted_only_without_an_expected_version() -> None:
    plain = table_pb2.ActRequest(idempotency_key="k")
    guarded = table_pb2.ActRequest(idempotency_key="k", expected_version=7)
    assert Caller.retryable(Unavailable("down"), plain)
    assert Caller.retryable(Unavailable("down"), guarded)
    assert Caller.retryable(Aborted("conflict"), plain)
    assert not Caller.retryable(Aborted("the table moved"), guarded)  # the caller looks again
    assert not Caller.retryable(InvalidArgument("no"), plain)


def test_backoff_doubles_to_its_cap_with_jitter() -> None:
    delays = RetryPolicy(attempts=6, first_backoff_s=0.1, max_backoff_s=0.4).delays(
        random.Random(1)
    )
    assert len(delays) == 5
    for delay, base in zip(delays, (0.1, 0.2, 0.4, 0.4, 0.4), strict=True):
        assert 0.5 * base <= delay <= 1.5 * base


def test_a_command_retried_by_the_caller_is_the_same_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []

    def flaky(
        request: table_pb2.ActRequest, *, timeout: float | None = None
    ) -> table_pb2.ActResponse:
        seen.append(request.idempotency_key)
        if len(seen) < 3:
            raise _Status(grpc.StatusCode.UNAVAILABLE)
        return table_pb2.ActResponse(version=5)

    caller = Caller("TableService", ClientSettings(), sleep=lambda _: None)
    request = act_request("t1", poker_move("call"))
    assert caller.call("Act", flaky, request).version == 5
    assert len(set(seen)) == 1 and len(seen) == 3 and caller.retries == 2


def test_a_move_goes_in_its_games_member_of_the_request() -> None:
    request = act_request("t1", poker_move("raise", 6), hand_number=3, seat=1, key="k")
    assert request.WhichOneof("move") == "poker"
    assert request.poker == poker_pb2.PokerMove(action=poker_pb2.ACTION_RAISE, amount=6)
    assert (request.hand_number, request.seat, request.idempotency_key) == (3, 1, "k")
    assert act_request("t1", poker_move("fold")).idempotency_key  # a fresh key by default
    with pytest.raises(TypeError, match="not a table move"):
        act_request("t1", table_pb2.TableView())


def test_poker_options_and_moves_refuse_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown action 'dance'"):
        poker_move("dance")
    with pytest.raises(ValueError, match="unknown poker variant"):
        poker_options(variant="go-fish")
    options = poker_options(big_blind=2, small_blind=1)
    assert (options.min_buy_in, options.max_buy_in) == (40, 400)


def test_a_players_ledger_keys_are_in_the_players_own_namespace() -> None:
    token = auth.issue_token("k" * 32, "alice", auth.Role.PLAYER, 60)
    assert caller_of(token) == ("alice", "player")
    with LedgerClient(ClientSettings(token=token)) as player:
        assert player.new_key("deposit").startswith("player:alice/deposit-")
    service = auth.issue_token("k" * 32, "table", auth.Role.SERVICE, 60)
    with LedgerClient(ClientSettings(token=service)) as platform:
        assert platform.new_key("deposit").startswith("deposit-")
    assert caller_of("not a jwt") is None


class _Status(grpc.RpcError, grpc.Call):
    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "down"

    def initial_metadata(self) -> tuple[()]:
        return ()

    def trailing_metadata(self) -> tuple[()]:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: object) -> bool:
        return False
