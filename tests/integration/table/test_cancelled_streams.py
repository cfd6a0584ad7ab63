"""A client that cancels a stream is normal: no ERROR log, no traceback, no INTERNAL (or
UNKNOWN) in the request metrics, for Play, WatchTable and server reflection alike.

Each stream is cancelled while its handler waits for the client (Play for the next Act,
reflection for the next request, WatchTable for the next event): before, the request
iterator's error on cancellation reached the error interceptor as an "unexpected error in
rpc", logged with a full traceback and answered INTERNAL."""

from __future__ import annotations

import gc
import logging
import queue
import time
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, TypeVar

import grpc
import pytest
import structlog
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from croupier.table.v1 import table_pb2
from services.shared import auth
from services.shared.metrics import REQUESTS
from tests.integration.table.conftest import Platform, create_table, seat, view_of

T = TypeVar("T")
ROUNDS = 5
TABLE = "croupier.table.v1.TableService"
REFLECTION = "grpc.reflection.v1alpha.ServerReflection"


def count(service: str, method: str, code: str) -> float:
    return float(REQUESTS.labels(service, method, code)._value.get())


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def handled(service: str, method: str) -> float:
    """Calls of the method that ended, whatever their code."""
    return sum(
        sample.value
        for metric in REQUESTS.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
        and sample.labels["grpc_service"] == service
        and sample.labels["grpc_method"] == method
    )


def ended(service: str, method: str) -> Callable[[], bool]:
    """Whether one more call of the method ended since this call. (A handler gRPC dropped on
    the cancellation ends when it is collected: look after a collection.)"""
    before = handled(service, method)

    def check() -> bool:
        gc.collect()
        return handled(service, method) > before

    return check


def blocking(first: T) -> tuple[Iterator[T], Callable[[], None]]:
    """A request iterator that yields `first`, then waits (as a client with nothing to send
    yet) until released."""
    requests: queue.Queue[T | None] = queue.Queue()
    requests.put(first)
    return iter(requests.get, None), lambda: requests.put(None)


@pytest.fixture
def quiet_logs(caplog: pytest.LogCaptureFixture) -> Iterator[list[MutableMapping[str, Any]]]:
    caplog.set_level(logging.WARNING)
    with structlog.testing.capture_logs() as logs:
        yield logs
    errors = [entry for entry in logs if entry.get("log_level") in ("error", "critical")]
    assert errors == [], errors
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_cancelled_play_watch_and_reflection_streams_are_not_errors(
    platform: Platform, quiet_logs: list[MutableMapping[str, Any]]
) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    kinds = [(TABLE, "Play"), (TABLE, "WatchTable"), (REFLECTION, "ServerReflectionInfo")]
    faults = [
        (service, method, code) for service, method in kinds for code in ("INTERNAL", "UNKNOWN")
    ]
    before = {fault: count(*fault) for fault in faults}

    for _ in range(ROUNDS):
        # Play: one Act (refused: it is not her turn, or it is and she checks), then the
        # stream waits for the next one and the client cancels.
        cancelled = ended(TABLE, "Play")
        act = table_pb2.PlayRequest(
            act=table_pb2.ActRequest(
                table_id=table_id, action=table_pb2.ACTION_FOLD, idempotency_key="never-twice"
            )
        )
        requests, release = blocking(act)
        call = alice.Play(requests)
        next(call)
        call.cancel()
        assert wait_for(cancelled)
        release()  # (only now: an end of the requests could overtake the cancellation)

        cancelled = ended(TABLE, "WatchTable")
        watch = alice.WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
        next(watch)  # the view; then it waits for the next event
        watch.cancel()
        assert wait_for(cancelled)

        cancelled = ended(REFLECTION, "ServerReflectionInfo")
        channel = grpc.insecure_channel(f"127.0.0.1:{platform.port}")
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests, release = blocking(reflection_pb2.ServerReflectionRequest(list_services=""))
        stream = reflection.ServerReflectionInfo(requests)
        assert next(stream).list_services_response.service
        stream.cancel()
        assert wait_for(cancelled)
        release()
        channel.close()

    assert {fault: count(*fault) for fault in faults} == before
    # Each call has ended (waited for above), none as INTERNAL or UNKNOWN. Which of CANCELLED
    # or OK a call ends with depends on whether the server saw the client's end of requests
    # or its cancellation first, which a busy machine reorders, so the test does not pin it.
    # The table still serves everyone.
    assert view_of(platform.table("house", auth.Role.ADMIN), table_id).hand_number >= 1
