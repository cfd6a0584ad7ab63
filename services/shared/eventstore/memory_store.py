"""The in-memory twin of RedisEventStore for pure unit tests: same contract, one process.

It keeps the same encoded entries as Redis (via codec), so encoding, decoding and unknown-type
errors behave exactly alike; one lock makes each append atomic.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message

from services.shared.eventstore import arguments, keys
from services.shared.eventstore.codec import (
    decode_entry,
    decode_new,
    encode_batch,
    entry_fields,
    parse_snapshot,
)
from services.shared.eventstore.interface import (
    ANY_VERSION,
    DEFAULT_IDEMPOTENCY_TTL_S,
    READ_NEW_PAGE,
    AppendResult,
    M,
    RecordedEvent,
    follow,
)
from services.shared.eventstore.registry import EventRegistry


@dataclass(frozen=True, slots=True)
class _Snapshot:
    version: int
    type_name: str
    schema_version: int
    payload: bytes


@dataclass(slots=True)
class _Data:
    streams: dict[str, list[dict[bytes, bytes]]] = field(default_factory=dict)
    results: dict[str, tuple[AppendResult, float]] = field(default_factory=dict)  # + expiry
    snapshots: dict[str, _Snapshot] = field(default_factory=dict)
    changed: threading.Condition = field(default_factory=threading.Condition)


class InMemoryEventStore:
    """`EventStore` in a dict, thread-safe. `clock` (seconds) is injectable for TTL tests."""

    def __init__(
        self,
        registry: EventRegistry,
        *,
        idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S,
        clock: Callable[[], float] = time.time,
        shared_with: InMemoryEventStore | None = None,
    ) -> None:
        """`shared_with`: see the other store's data through this registry, as a second
        process on the same Redis would (e.g. one that lacks some event types)."""
        self._registry = registry
        self._idempotency_ttl_s = idempotency_ttl_s
        self._clock = clock
        self._data: _Data = shared_with._data if shared_with is not None else _Data()

    def append(
        self,
        stream: str,
        events: Sequence[Message],
        expected_version: int,
        idempotency_key: str,
    ) -> AppendResult:
        arguments.check_append(stream, events, expected_version, idempotency_key)
        encoded = encode_batch(self._registry, events)
        idem = keys.idempotency_key(stream, idempotency_key)
        with self._data.changed:
            now = self._clock()
            previous = self._data.results.get(idem)
            if previous is not None and previous[1] > now:
                original = previous[0]
                return AppendResult(original.first_version, original.last_version, True)
            entries = self._data.streams.setdefault(stream, [])
            current = len(entries)
            if expected_version != ANY_VERSION and expected_version != current:
                raise arguments.conflict(stream, expected_version, current)
            at_ms = int(now * 1000)
            entries += [
                entry_fields(event, current + i + 1, idempotency_key, at_ms)
                for i, event in enumerate(encoded)
            ]
            result = AppendResult(current + 1, current + len(encoded))
            self._data.results[idem] = (result, now + self._idempotency_ttl_s)
            self._data.changed.notify_all()
            return result

    def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        arguments.check_read(stream, from_version, limit)
        with self._data.changed:
            entries = self._data.streams.get(stream, [])
            end = len(entries) if limit is None else from_version - 1 + limit
            selected = entries[from_version - 1 : end]
        return [decode_entry(self._registry, stream, fields) for fields in selected]

    def version(self, stream: str) -> int:
        keys.hash_tag(stream)
        with self._data.changed:
            return len(self._data.streams.get(stream, []))

    def wait_for_replicas(self, stream: str) -> None:
        keys.hash_tag(stream)  # (one process: nothing to replicate)

    def subscribe(
        self,
        stream: str,
        from_version: int = 1,
        *,
        block_ms: int = 1000,
        stop: threading.Event | None = None,
    ) -> Iterator[RecordedEvent]:
        arguments.check_read(stream, from_version, None)
        return follow(self, stream, from_version, block_ms=block_ms, stop=stop)

    def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]:
        for stream, version in after.items():
            arguments.check_read(stream, version + 1, None)
        streams = self._data.streams
        with self._data.changed:
            if after and all(len(streams.get(s, ())) <= v for s, v in after.items()):
                self._data.changed.wait(block_ms / 1000)
            # (the entry at index i of a stream is its version i + 1)
            new = {
                s: list(enumerate(streams.get(s, [])[v : v + READ_NEW_PAGE], start=v + 1))
                for s, v in after.items()
            }
        return decode_new(self._registry, new.items(), known)

    def save_snapshot(
        self, stream: str, version: int, message: Message, schema_version: int = 1
    ) -> None:
        with self._data.changed:
            arguments.check_snapshot(stream, version, self.version(stream))
            existing = self._data.snapshots.get(stream)
            if existing is not None and existing.version > version:
                return
            self._data.snapshots[stream] = _Snapshot(
                version,
                message.DESCRIPTOR.full_name,
                schema_version,
                message.SerializeToString(deterministic=True),
            )

    def load_snapshot(
        self, stream: str, message_type: type[M], schema_version: int = 1
    ) -> tuple[int, M] | None:
        keys.hash_tag(stream)
        with self._data.changed:
            snapshot = self._data.snapshots.get(stream)
        if snapshot is None or snapshot.type_name != message_type.DESCRIPTOR.full_name:
            return None
        if snapshot.schema_version != schema_version:
            return None
        return snapshot.version, parse_snapshot(stream, message_type, snapshot.payload)
