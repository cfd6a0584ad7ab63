"""The SDK's calls against the real services: a command whose answer is lost is retried with
its own idempotency key and applied once; refusals come back as readable exceptions."""

from __future__ import annotations

import queue
import socket
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
import structlog.testing
from prometheus_client import REGISTRY

from croupier.table.v1 import table_pb2
from services.sdk import (
    ClientSettings,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RetryPolicy,
    TableClient,
    Unavailable,
    act_request,
    player_account,
    poker_move,
    poker_options,
)
from services.shared import auth
from tests.integration.table.conftest import Platform, wait_for_turn

from .conftest import Clients

pytestmark = pytest.mark.integration


class _LostAnswer(grpc.RpcError, grpc.Call):
    """What a client sees when the service applied a call but its answer never arrived."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection reset (the answer was lost)"

    def initial_metadata(self) -> Any:
        return ()

    def trailing_metadata(self) -> Any:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return False


class LoseFirstAnswer(grpc.UnaryUnaryClientInterceptor):
    """Lets the first call of `method` reach the real service, waits for its answer, and
    drops it: the caller sees UNAVAILABLE although the command was applied."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.keys: list[str] = []

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        if details.method.endswith("/" + self.method):
            self.keys.append(request.idempotency_key)
            if len(self.keys) == 1:
                continuation(details, request).result()  # applied by the service
                raise _LostAnswer()
        return continuation(details, request)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_join_whose_answer_was_lost_is_retried_with_its_key_and_buys_in_once(
    platform: Platform, clients: Clients
) -> None:
    house = clients("house", auth.Role.ADMIN)
    table_id = house.tables.create_table(poker_options(seats=2)).table_id
    platform.fund("alice", 1000)
    lose = LoseFirstAnswer("JoinTable")
    alice = clients("alice", interceptors=[lose])

    joined = alice.tables.join(table_id, buy_in=200)

    assert lose.keys[0] == lose.keys[1] != ""  # the retry was the same command
    assert alice.tables.retries == 1
    view = alice.tables.view(table_id)
    assert [(s.seat, s.player_id, s.stack) for s in view.seats if s.player_id] == [
        (joined.seat, "alice", 200)
    ]
    assert platform.balance(player_account("alice")) == 800  # bought in once


def test_a_move_whose_answer_was_lost_is_applied_once(platform: Platform, clients: Clients) -> None:
    house = clients("house", auth.Role.ADMIN)
    table_id = house.tables.create_table(poker_options(seats=2)).table_id
    players = {}
    for name in ("alice", "bob"):
        platform.fund(name, 1000)
        lose = LoseFirstAnswer("Act")
        players[name] = (clients(name, interceptors=[lose]), lose)
        players[name][0].tables.join(table_id, buy_in=200)
    first = wait_for_turn(platform.table("house", auth.Role.ADMIN), table_id)
    actor = next(s.player_id for s in first.seats if s.seat == first.to_act)
    client, lose = players[actor]

    client.tables.act(table_id, poker_move("call"), hand_number=first.hand_number)

    # Without the same key the retry would be a second call, refused: no longer our turn.
    assert len(lose.keys) == 2 and lose.keys[0] == lose.keys[1]
    after = client.tables.view(table_id)
    assert after.to_act != first.to_act and after.hand_number == first.hand_number
    mine = next(s for s in after.seats if s.player_id == actor)
    assert mine.bet == first.current_bet  # called once


def test_refusals_are_exceptions_with_the_servers_message(
    platform: Platform, clients: Clients
) -> None:
    house = clients("house", auth.Role.ADMIN)
    table_id = house.tables.create_table(poker_options(seats=2)).table_id
    alice = clients("alice")
    with pytest.raises(NotFound) as missing:
        alice.tables.view("no-such-table")
    assert "no-such-table" in missing.value.message
    assert str(missing.value).startswith("TableService.GetTableView: NOT_FOUND: ")
    with pytest.raises(InvalidArgument) as small:
        alice.tables.join(table_id, buy_in=1)
    assert "buy-in" in small.value.message.lower()
    with pytest.raises(PermissionDenied):
        alice.ledger.balance(player_account("bob"))
    platform.fund("alice", 500)
    platform.fund("bob", 500)
    alice.tables.join(table_id, buy_in=200)
    clients("bob").tables.join(table_id, buy_in=200)
    view = wait_for_turn(alice.tables.stub, table_id)
    waiting = (
        "alice"
        if next(s.player_id for s in view.seats if s.seat == view.to_act) == "bob"
        else "bob"
    )
    with pytest.raises(FailedPrecondition) as early:
        clients(waiting).tables.act(table_id, poker_move("check"))
    assert "turn" in early.value.message


def test_an_unreachable_service_is_unavailable_after_the_retries(clients: Clients) -> None:
    settings = ClientSettings(
        table=f"127.0.0.1:{_free_port()}",
        token="unused",
        timeout_s=2,
        retry=RetryPolicy(attempts=3, first_backoff_s=0.01),
    )
    with TableClient(settings) as tables, pytest.raises(Unavailable) as down:
        tables.view("t1")
    assert tables.retries == 2
    assert "cannot be reached" in down.value.message


def _finished(method: str) -> float:
    """TableService calls of `method` the metrics saw finish, whatever their status."""
    total = 0.0
    for metric in REGISTRY.collect():
        for sample in metric.samples:
            if (
                sample.name == "croupier_grpc_requests_total"
                and sample.labels.get("grpc_service") == "croupier.table.v1.TableService"
                and sample.labels.get("grpc_method") == method
            ):
                total += sample.value
    return total


def test_a_client_hanging_up_a_play_stream_is_no_error_on_the_server(
    platform: Platform, clients: Clients
) -> None:
    house = clients("house", auth.Role.ADMIN)
    table_id = house.tables.create_table(poker_options(seats=2)).table_id
    before = _finished("Play")
    requests: queue.SimpleQueue[table_pb2.PlayRequest | None] = queue.SimpleQueue()
    with structlog.testing.capture_logs() as logs:
        call = house.tables.stub.Play(iter(requests.get, None))
        requests.put(table_pb2.PlayRequest(act=act_request(table_id, poker_move("check"))))
        answer = next(call)  # refused (house has no seat): the server now waits for more
        assert answer.WhichOneof("result") == "error"
        call.cancel()
        deadline = time.monotonic() + 10
        while _finished("Play") == before and time.monotonic() < deadline:
            time.sleep(0.02)
    assert _finished("Play") == before + 1
    assert [e for e in logs if e["log_level"] in ("error", "critical")] == []
