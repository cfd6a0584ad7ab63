"""Argument checks and error messages shared by every store, so all of them fail alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.message import Message

from services.shared.errors import Conflict, InvalidArgument, shown
from services.shared.eventstore.interface import ANY_VERSION, AppendResult
from services.shared.eventstore.keys import hash_tag

MAX_IDEMPOTENCY_KEY_LENGTH = 200


def check_append(
    stream: str, events: Sequence[Message], expected_version: int, idempotency_key: str
) -> None:
    hash_tag(stream)
    if not events:
        raise InvalidArgument(f"append to {stream} needs at least one event")
    if expected_version < ANY_VERSION:
        raise InvalidArgument(
            f"expected version must be >= 0 (or ANY_VERSION = -1), got {expected_version}"
        )
    if not idempotency_key or len(idempotency_key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise InvalidArgument(
            f"idempotency key must be 1-{MAX_IDEMPOTENCY_KEY_LENGTH} characters, derived from "
            f"the command (e.g. 'table-42/hand-7/fold-seat-3'), got {shown(idempotency_key)}"
        )


def check_read(stream: str, from_version: int, limit: int | None) -> None:
    hash_tag(stream)
    if from_version < 1:
        raise InvalidArgument(
            f"from_version must be >= 1 (versions start at 1), got {from_version}"
        )
    if limit is not None and limit < 1:
        raise InvalidArgument(f"limit must be >= 1 or None, got {limit}")


def check_snapshot(stream: str, version: int, current: int) -> None:
    hash_tag(stream)
    if not 1 <= version <= current:
        raise InvalidArgument(
            f"snapshot version must be between 1 and the stream's version {current}, got {version}"
        )


def conflict(stream: str, expected: int, actual: int) -> Conflict:
    return Conflict(
        f"{stream} is at version {actual}, not the expected version {expected}: "
        "reload the aggregate and retry the command",
        actual_version=actual,
    )


def append_result(stream: str, expected_version: int, reply: Any) -> AppendResult:
    status, detail = bytes(reply[0]).decode(), bytes(reply[1]).decode()
    if status == "conflict":
        raise conflict(stream, expected_version, int(detail))
    if status == "corrupt":
        raise RuntimeError(f"{stream} is inconsistent ({detail}); refusing to append")
    first, last = (int(part) for part in detail.split(":"))
    return AppendResult(first, last, deduplicated=status == "dup")
