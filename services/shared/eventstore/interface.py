"""The event store contract: what every implementation (Redis Streams, in-memory) promises.

A stream holds the events of one aggregate (a table, a shuffle, an account) under versions
1, 2, 3 … with no gaps. `append` is the only write: all events of one command, atomically,
guarded by the version the caller last saw and by an idempotency key that makes retries safe.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from google.protobuf.message import Message

M = TypeVar("M", bound=Message)

# Pass as expected_version to skip the optimistic-concurrency check (the idempotency key
# still applies). Use it only for streams with a single logical writer.
ANY_VERSION = -1

# How long a used idempotency key keeps its original result (retries later than this append
# again). 24 h is comfortably longer than any client or Celery retry schedule we use.
DEFAULT_IDEMPOTENCY_TTL_S = 24 * 60 * 60
# Most events one `read_new` returns per stream: a follower far behind catches up in pages
# (each reply bounded in size), asking again from the last version it got.
READ_NEW_PAGE = 1000


@dataclass(frozen=True, slots=True)
class AppendResult:
    """The versions one append occupied; `deduplicated` is True when a retry was recognised
    by its idempotency key and nothing new was written (the versions are the original ones)."""

    first_version: int
    last_version: int
    deduplicated: bool = False


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """One stored event, decoded: its place in the stream and the protobuf message."""

    stream: str
    version: int
    type_name: str
    schema_version: int
    message: Message
    recorded_at_ms: int  # server clock (Unix epoch, milliseconds) when the append committed


class EventStore(Protocol):
    """Append-only, versioned, idempotent event streams with snapshots."""

    def append(
        self,
        stream: str,
        events: Sequence[Message],
        expected_version: int,
        idempotency_key: str,
    ) -> AppendResult:
        """Append all `events` atomically after `expected_version` (0 for a new stream).

        Raises `errors.Conflict` (with `actual_version`) when the stream is elsewhere, and
        returns the original result with `deduplicated=True` when `idempotency_key` was already
        used on this stream (whatever the stream's version is now). Nothing is written on error.
        """
        ...

    def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        """Events with version >= `from_version`, oldest first, at most `limit` of them."""
        ...

    def version(self, stream: str) -> int:
        """The stream's last version (0 when it has no events)."""
        ...

    def wait_for_replicas(self, stream: str) -> None:
        """Return once every write made to `stream` so far is on as many replicas of its
        master as the store waits for after an append (none: at once). For an answer given
        from what was read rather than appended (a retry whose first attempt is in the
        stream): that attempt may still be on the master alone. Unavailable if they do not
        confirm in time."""
        ...

    def subscribe(
        self,
        stream: str,
        from_version: int = 1,
        *,
        block_ms: int = 1000,
        stop: threading.Event | None = None,
    ) -> Iterator[RecordedEvent]:
        """Every event from `from_version` on, then new ones as they are appended.

        Waits at most `block_ms` at a time and ends once `stop` is set (or when the caller
        closes the iterator). To resume, subscribe again from the last seen version + 1.
        """
        ...

    def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]:
        """The events after version `after[stream]` of each of the streams, oldest first, at
        most READ_NEW_PAGE per stream (ask again from the last one for more); when none has
        any yet, waits up to `block_ms` for the first
        (then returns {}). Only streams with events are in the result. One wait serves all
        the streams; on a Redis Cluster, where one command cannot span slots, that is one
        aggregate's stream only (InvalidArgument otherwise).

        `known(stream, newest)`, asked once a stream's events (up to version `newest`) are
        in, is the last version of the stream the caller meanwhile got elsewhere: events up
        to it are left out before being decoded.
        """
        ...

    def save_snapshot(
        self, stream: str, version: int, message: Message, schema_version: int = 1
    ) -> None:
        """Remember the aggregate state after `version`; an older snapshot never replaces a
        newer one."""
        ...

    def load_snapshot(
        self, stream: str, message_type: type[M], schema_version: int = 1
    ) -> tuple[int, M] | None:
        """The latest snapshot as (version, state), or None when there is none or it was saved
        with another message type or schema version (then replay from version 1)."""
        ...


def follow(
    store: EventStore,
    stream: str,
    from_version: int,
    *,
    block_ms: int,
    stop: threading.Event | None,
) -> Iterator[RecordedEvent]:
    """`subscribe` in terms of `read_new`: every store follows one stream the same way."""
    last = from_version - 1
    while stop is None or not stop.is_set():
        for record in store.read_new({stream: last}, block_ms=block_ms).get(stream, ()):
            last = record.version
            yield record
            if stop is not None and stop.is_set():
                return
