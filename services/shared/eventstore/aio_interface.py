"""The event store contract for asyncio callers: `EventStore`'s promises, as coroutines.

Every rule of `interface.EventStore` holds unchanged (versions, the expected version, the
idempotency key, pages, snapshots); only the calls are awaited, and a follower stops on an
`asyncio.Event` instead of a thread's. A caller cancelled while an append is in flight does
not know whether it was applied: retrying with the same idempotency key answers the original
result if it was (`deduplicated=True`) and appends it if it was not, as after a lost reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Protocol

from google.protobuf.message import Message

from services.shared.eventstore.interface import AppendResult, M, RecordedEvent


class AsyncEventStore(Protocol):
    """`EventStore` with awaited calls (see interface.EventStore for each rule)."""

    async def append(
        self,
        stream: str,
        events: Sequence[Message],
        expected_version: int,
        idempotency_key: str,
    ) -> AppendResult: ...

    async def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]: ...

    async def version(self, stream: str) -> int: ...

    async def wait_for_replicas(self, stream: str) -> None:
        """`EventStore.wait_for_replicas`, awaited."""
        ...

    def subscribe(
        self,
        stream: str,
        from_version: int = 1,
        *,
        block_ms: int = 1000,
        stop: asyncio.Event | None = None,
    ) -> AsyncIterator[RecordedEvent]: ...

    async def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]: ...

    async def save_snapshot(
        self, stream: str, version: int, message: Message, schema_version: int = 1
    ) -> None: ...

    async def load_snapshot(
        self, stream: str, message_type: type[M], schema_version: int = 1
    ) -> tuple[int, M] | None: ...

    async def close(self) -> None:
        """Hand back the connections this store keeps (the client stays the caller's)."""
        ...


async def follow(
    store: AsyncEventStore,
    stream: str,
    from_version: int,
    *,
    block_ms: int,
    stop: asyncio.Event | None,
) -> AsyncIterator[RecordedEvent]:
    """`subscribe` in terms of `read_new`, as interface.follow does for the sync stores."""
    last = from_version - 1
    while stop is None or not stop.is_set():
        found = await store.read_new({stream: last}, block_ms=block_ms)
        for record in found.get(stream, ()):
            last = record.version
            yield record
            if stop is not None and stop.is_set():
                return
