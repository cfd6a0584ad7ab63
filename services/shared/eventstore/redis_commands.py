"""What the two Redis stores send and how they read the replies, with no I/O: the sync store
(redis-py) and the asyncio one (redis.asyncio) differ only in how they wait for Redis, so the
keys, script operands, entry layout and errors are built here once and stay identical."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from google.protobuf.message import Message
from redis.typing import KeyT, StreamIdT

from services.shared.errors import InvalidArgument, Unavailable
from services.shared.eventstore import arguments, keys
from services.shared.eventstore.codec import encode_batch, parse_snapshot
from services.shared.eventstore.interface import M
from services.shared.eventstore.registry import EventRegistry

Entry = tuple[bytes, dict[bytes, bytes]]


def append_operands(
    registry: EventRegistry,
    stream: str,
    events: Sequence[Message],
    expected_version: int,
    idempotency_key: str,
    idempotency_ttl_s: int,
) -> tuple[list[str], list[Any]]:
    """The append script's keys and arguments, after the arguments are checked."""
    arguments.check_append(stream, events, expected_version, idempotency_key)
    encoded = encode_batch(registry, events)
    script_keys = [
        stream,
        keys.version_key(stream),
        keys.idempotency_key(stream, idempotency_key),
    ]
    args: list[Any] = [expected_version, idempotency_ttl_s, idempotency_key, len(encoded)]
    for event in encoded:
        args += [event.type_name, event.schema_version, event.payload]
    return script_keys, args


def check_durable(synced: Any, waitaof_timeout_ms: int) -> None:
    """Unavailable unless WAITAOF's reply says one local fsync covered the append: it was
    applied but is not yet on disk, and a retry with the same key is safe and waits again."""
    if int(synced[0]) < 1:
        raise Unavailable(
            f"append not confirmed durable (AOF fsync) within {waitaof_timeout_ms} ms;"
            " retry with the same idempotency key"
        )


def read_new_streams(
    after: Mapping[str, int], cluster: bool, block_ms: int, socket_timeout: float | None
) -> tuple[dict[KeyT, StreamIdT], int]:
    """XREAD's stream ids and block time for `read_new`, after the arguments are checked.

    A blocked XREAD longer than the client's socket timeout would end in TimeoutError: it
    blocks for at most half of it, and the store treats a late reply as an empty one (redis-py
    drops the connection on a timeout; the caller asks again from the same versions)."""
    for stream, version in after.items():
        arguments.check_read(stream, version + 1, None)
    if cluster and len({keys.hash_tag(stream) for stream in after}) > 1:
        raise InvalidArgument(
            f"read_new over {len(after)} aggregates: on a Redis Cluster one XREAD waits on "
            "streams of one slot only; wait on each aggregate's stream separately"
        )
    if socket_timeout:
        block_ms = max(1, min(block_ms, int(socket_timeout * 500)))
    streams: dict[KeyT, StreamIdT] = {stream: f"{version}-0" for stream, version in after.items()}
    return streams, block_ms


def read_new_entries(reply: Any) -> Iterator[tuple[str, list[tuple[int, dict[bytes, bytes]]]]]:
    """XREAD's reply as (stream, [(version, fields)]): entry ids are `<version>-0`, so what a
    caller already has is skipped before anything is decoded."""
    return (
        (
            key.decode(),
            [(int(entry_id.partition(b"-")[0]), fields) for entry_id, fields in entries],
        )
        for key, entries in cast(list[tuple[bytes, list[Entry]]], reply or [])
    )


def snapshot_operands(
    stream: str, version: int, message: Message, schema_version: int
) -> tuple[list[str], list[Any]]:
    """The save-snapshot script's keys and arguments."""
    return (
        [keys.snapshot_key(stream), keys.version_key(stream)],
        [
            version,
            message.DESCRIPTOR.full_name,
            schema_version,
            message.SerializeToString(deterministic=True),
        ],
    )


def check_snapshot_reply(stream: str, version: int, reply: Any) -> None:
    """The script refuses a snapshot ahead of the stream: the same error as every store."""
    if reply[0] == b"ahead":
        arguments.check_snapshot(stream, version, int(reply[1]))


def snapshot_from_hash(
    stream: str, raw: Mapping[bytes, bytes], message_type: type[M], schema_version: int
) -> tuple[int, M] | None:
    """A stored snapshot of this type and schema, or None (none, or one of another kind)."""
    if not raw:
        return None
    if raw[b"type"].decode() != message_type.DESCRIPTOR.full_name:
        return None
    if int(raw[b"schema"]) != schema_version:
        return None
    return int(raw[b"version"]), parse_snapshot(stream, message_type, raw[b"data"])
