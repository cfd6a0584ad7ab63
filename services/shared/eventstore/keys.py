"""Key names. Every key of one aggregate shares the hash tag `{<kind>:<id>}`, so the stream,
its version counter, its idempotency keys and its snapshot live in one Redis Cluster slot and one
Lua script may touch them all."""

from __future__ import annotations

import re

from services.shared.errors import InvalidArgument, shown

_STREAM = re.compile(r"^\{([^{}]+)\}:events$")
_PART = re.compile(r"^[A-Za-z0-9_.\-]+$")


def stream_key(kind: str, aggregate_id: str) -> str:
    """The stream of one aggregate, e.g. stream_key("table", "42") == "{table:42}:events"."""
    for label, value in (("kind", kind), ("aggregate id", aggregate_id)):
        if not _PART.match(value):
            raise InvalidArgument(
                f"{label} {shown(value)} must be non-empty letters, digits, '_', '-' or '.'"
            )
    return f"{{{kind}:{aggregate_id}}}:events"


def hash_tag(stream: str) -> str:
    """`{table:42}` for `{table:42}:events`; rejects names that would split an aggregate."""
    match = _STREAM.match(stream)
    if match is None:
        raise InvalidArgument(
            f"stream {shown(stream)} must look like '{{table:42}}:events'; "
            "build it with eventstore.stream_key(kind, id)"
        )
    return f"{{{match.group(1)}}}"


def version_key(stream: str) -> str:
    return f"{hash_tag(stream)}:version"


def idempotency_key(stream: str, key: str) -> str:
    return f"{hash_tag(stream)}:idem:{key}"


def snapshot_key(stream: str) -> str:
    return f"{hash_tag(stream)}:snapshot"
