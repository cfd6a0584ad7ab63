"""Every dealer and ledger call the table makes carries its service token when the adapter
is given one (server.py hands them plain channels: a call without it would be refused)."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any

import grpc

from services.games.contract import DeckSpec
from services.shared import auth, errors
from services.table.adapters import GrpcDealer, GrpcLedger


class RecordingChannel(grpc.Channel):
    """Answers every unary call with an empty response and records its metadata."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def unary_unary(
        self,
        method: str,
        request_serializer: Callable[[Any], bytes] | None = None,
        response_deserializer: Callable[[bytes], Any] | None = None,
        _registered_method: bool = False,
    ) -> Any:
        def invoke(request: Any, timeout: float | None = None, metadata: Any = None) -> Any:
            self.calls.append((method, metadata))
            assert response_deserializer is not None
            return response_deserializer(b"")

        return invoke

    def unary_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_unary(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def subscribe(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    def unsubscribe(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


SAMPLE_ARGUMENTS: dict[str, Any] = {
    "shuffle_id": "t1.hand-1",
    "contributor": "alice",
    "entropy": b"x",
    "commitment": bytes(32),
    "needed": 3,
    "count": 2,
    "step": "t1/1/deal/9",
    "purpose": "hole",
    "burn": 0,
    "position": 4,
    "cards": ("2c",),
    "key": "t1/1/settle",
    "table_id": "t1",
    "account": "player:alice:CHIP",
    "amount": 10,
    "currency": "CHIP",
    "reservation_id": "r1",
    "reason": "test",
    "hand": 1,
    "player": "alice",
    "deck_spec": DeckSpec(cards=("2c", "2c", "3d")),
    "calls": (("close", ("t1.hand-1", "hand ended"), {}), ("seal", ("t1.hand-2",), {})),
}


def call_every_method(adapter: object) -> int:
    """Call each public method with sample arguments; returns how many were called."""
    called = 0
    for name, method in inspect.getmembers(adapter, inspect.ismethod):
        if name.startswith("_"):
            continue
        parameters = inspect.signature(method).parameters
        if any(p not in SAMPLE_ARGUMENTS for p in parameters):
            raise AssertionError(f"add sample arguments for {type(adapter).__name__}.{name}")
        # An empty response can fail a check (Deal's card count): the call was made anyway.
        with contextlib.suppress(errors.DomainError):
            method(**{p: SAMPLE_ARGUMENTS[p] for p in parameters})
        called += 1
    return called


def test_every_dealer_and_ledger_call_sends_the_token_it_is_given() -> None:
    tokens = iter(["token-1", "token-2", "token-3"] + ["token-n"] * 100)
    for adapter_class in (GrpcDealer, GrpcLedger):
        channel = RecordingChannel()
        adapter = adapter_class(channel, token=lambda: next(tokens))
        assert call_every_method(adapter) >= 5
        assert channel.calls, adapter_class.__name__
        for method, metadata in channel.calls:
            assert metadata is not None, f"{method} sent no token"
            ((key, value),) = metadata
            assert key == auth.METADATA_KEY and value.startswith("Bearer token-"), method


def test_without_a_token_the_calls_leave_it_to_the_channel() -> None:
    channel = RecordingChannel()
    call_every_method(GrpcLedger(channel))
    assert channel.calls and all(metadata is None for _, metadata in channel.calls)
