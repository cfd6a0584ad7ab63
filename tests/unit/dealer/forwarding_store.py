"""An event store that hands every call to another one: the base of the tests' counting and
slowed-down stores, typed as the `EventStore` protocol so mypy checks each wrapper fits it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar

from google.protobuf.message import Message

from services.shared.eventstore import EventStore
from services.shared.eventstore.interface import AppendResult, RecordedEvent

M = TypeVar("M", bound=Message)


class ForwardingStore:
    def __init__(self, store: EventStore) -> None:
        self._store = store

    def append(
        self, stream: str, events: Sequence[Message], expected_version: int, idempotency_key: str
    ) -> AppendResult:
        return self._store.append(stream, events, expected_version, idempotency_key)

    def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        return self._store.read(stream, from_version, limit)

    def version(self, stream: str) -> int:
        return self._store.version(stream)

    def wait_for_replicas(self, stream: str) -> None:
        self._store.wait_for_replicas(stream)

    def subscribe(
        self,
        stream: str,
        from_version: int = 1,
        *,
        block_ms: int = 1000,
        stop: threading.Event | None = None,
    ) -> Iterator[RecordedEvent]:
        return self._store.subscribe(stream, from_version, block_ms=block_ms, stop=stop)

    def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]:
        return self._store.read_new(after, block_ms=block_ms, known=known)

    def save_snapshot(
        self, stream: str, version: int, message: Message, schema_version: int = 1
    ) -> None:
        self._store.save_snapshot(stream, version, message, schema_version)

    def load_snapshot(
        self, stream: str, message_type: type[M], schema_version: int = 1
    ) -> tuple[int, M] | None:
        return self._store.load_snapshot(stream, message_type, schema_version)
