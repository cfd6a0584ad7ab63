"""How one event is laid out as a Redis Stream entry (and in the in-memory twin).

Entry id `<version>-0`, fields:
  type    protobuf full name of the message      e.g. croupier.poker.v1.HandStarted
  schema  schema version of the payload          e.g. 1
  data    the serialized protobuf message        bytes
  idem    idempotency key of the append           shared by all events of one command
  version the event's version (same as the id)   1, 2, 3 …
  at_ms   server time of the append, Unix ms
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError, Message

from services.shared.eventstore.interface import M, RecordedEvent
from services.shared.eventstore.registry import EventDecodingError, EventRegistry


@dataclass(frozen=True, slots=True)
class EncodedEvent:
    type_name: str
    schema_version: int
    payload: bytes


def encode_batch(registry: EventRegistry, events: Sequence[Message]) -> list[EncodedEvent]:
    """Encode every event before anything is written, so one bad event fails the whole batch."""
    encoded = []
    for message in events:
        type_name, schema_version, payload = registry.encode(message)
        encoded.append(EncodedEvent(type_name, schema_version, payload))
    return encoded


def decode_entry(
    registry: EventRegistry, stream: str, fields: Mapping[bytes, bytes]
) -> RecordedEvent:
    """A RecordedEvent from the raw fields of one stream entry."""
    try:
        version = int(fields[b"version"])
        type_name = fields[b"type"].decode()
        schema_version = int(fields[b"schema"])
        payload = fields[b"data"]
        recorded_at_ms = int(fields[b"at_ms"])
    except (KeyError, ValueError) as exc:
        raise EventDecodingError(f"malformed entry in {stream}: {exc!r}") from exc
    message = registry.decode(type_name, schema_version, payload, stream, version)
    return RecordedEvent(stream, version, type_name, schema_version, message, recorded_at_ms)


def decode_new(
    registry: EventRegistry,
    new: Iterable[tuple[str, Sequence[tuple[int, Mapping[bytes, bytes]]]]],
    known: Callable[[str, int], int] | None,
) -> dict[str, list[RecordedEvent]]:
    """`read_new`'s result from each stream's new entries as (version, fields), oldest first:
    those up to the version `known(stream, newest)` answers are left out before being
    decoded, and streams left with none are not in it."""
    found: dict[str, list[RecordedEvent]] = {}
    for stream, entries in new:
        have = known(stream, entries[-1][0]) if known is not None and entries else 0
        records = [
            decode_entry(registry, stream, fields) for version, fields in entries if version > have
        ]
        if records:
            found[stream] = records
    return found


def entry_fields(
    event: EncodedEvent, version: int, idempotency_key: str, recorded_at_ms: int
) -> dict[bytes, bytes]:
    """The fields `decode_entry` reads (the in-memory store keeps exactly these)."""
    return {
        b"type": event.type_name.encode(),
        b"schema": str(event.schema_version).encode(),
        b"data": event.payload,
        b"idem": idempotency_key.encode(),
        b"version": str(version).encode(),
        b"at_ms": str(recorded_at_ms).encode(),
    }


def parse_snapshot(stream: str, message_type: type[M], payload: bytes) -> M:
    """A stored snapshot's state; a payload that does not parse is an error, not a silent miss."""
    message = message_type()
    try:
        message.ParseFromString(payload)
    except DecodeError as exc:
        raise EventDecodingError(f"snapshot of {stream} does not parse: {exc}") from exc
    return message
