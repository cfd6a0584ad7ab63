"""Domain errors, one class per kind of refusal, and no gRPC: the pure cores raise them too.

Application and domain code raise these; each carries its `kind`, and `services.shared.status`
holds the one table from kinds to gRPC status codes, applied by the server's error interceptor
(and by `Play`, whose answers carry a status per move). The games' own `RuleViolation`s use
the same kinds. Messages are written for the person who made the request: say what was wrong
and what would be right ("it is seat 3's turn", "raise must be between 40 and 1000").
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

# Longest piece of a caller's input an error message repeats (see `shown`).
SHOWN_INPUT_CHARS = 80
# Longest message a status carries. It travels in the grpc-message trailer, percent-encoded
# beyond printable ASCII, and a client refuses trailers over 8 KiB ("Stream removed",
# RESOURCE_EXHAUSTED) instead of showing the real error: this leaves room for the rest.
MAX_MESSAGE_BYTES = 2048


def shown(value: object, limit: int = SHOWN_INPUT_CHARS) -> str:
    """`repr(value)` of a caller's input for an error message, cut to `limit` characters
    (saying how long it really was): an error must never grow with what the caller sent."""
    text = repr(value)
    if len(text) <= limit:
        return text
    length = f" ({len(value)} characters)" if isinstance(value, str | bytes) else ""
    return f"{text[:limit]}...{length}"


def _wire_size(char: str) -> int:
    # grpc percent-encodes every byte of the UTF-8 message outside printable ASCII, and '%'.
    if " " <= char <= "~" and char != "%":
        return 1
    return 3 * len(char.encode("utf-8", "replace"))


def bounded(message: str, max_bytes: int = MAX_MESSAGE_BYTES) -> str:
    """`message` cut so that it stays within `max_bytes` on the wire (with a marker)."""
    if len(message) * 12 <= max_bytes:  # (at most 4 UTF-8 bytes a character, 3 wire bytes each)
        return message
    size = 0
    for index, char in enumerate(message):
        size += _wire_size(char)
        if size > max_bytes - 40:
            return f"{message[:index]}... (message cut: {len(message)} characters)"
    return message


class ErrorKind(StrEnum):
    """What kind of refusal an error is (the games' `RuleViolation.kind` spells the same)."""

    INVALID_ARGUMENT = "invalid_argument"
    FAILED_PRECONDITION = "failed_precondition"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    ABORTED = "aborted"
    UNAUTHENTICATED = "unauthenticated"
    PERMISSION_DENIED = "permission_denied"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"


class DomainError(Exception):
    """Base of every error that maps to a gRPC status. Never carries secrets in its message."""

    kind: ClassVar[ErrorKind] = ErrorKind.UNKNOWN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(DomainError):
    """The request itself is malformed or out of range (a bad card, an illegal amount)."""

    kind = ErrorKind.INVALID_ARGUMENT


class FailedPrecondition(DomainError):
    """The request is well formed but the current state does not allow it (not your turn)."""

    kind = ErrorKind.FAILED_PRECONDITION


class NotFound(DomainError):
    """The named table, hand, shuffle or account does not exist."""

    kind = ErrorKind.NOT_FOUND


class AlreadyExists(DomainError):
    """The entity the request would create exists already."""

    kind = ErrorKind.ALREADY_EXISTS


class Conflict(DomainError):
    """An optimistic-concurrency conflict: the expected version is not the current one.

    Maps to ABORTED, which tells a client to reload and retry.
    """

    kind = ErrorKind.ABORTED

    def __init__(self, message: str, *, actual_version: int | None = None) -> None:
        super().__init__(message)
        self.actual_version = actual_version


class Unauthenticated(DomainError):
    """No credentials, or credentials that are expired, forged or malformed."""

    kind = ErrorKind.UNAUTHENTICATED


class PermissionDenied(DomainError):
    """The caller is known but may not do this (acting for another seat, a player dealing)."""

    kind = ErrorKind.PERMISSION_DENIED


class ResourceExhausted(DomainError):
    """A limit was hit (table full, too many requests, message too large)."""

    kind = ErrorKind.RESOURCE_EXHAUSTED


class Unavailable(DomainError):
    """A dependency (Redis, another service) cannot be reached right now; retrying may help."""

    kind = ErrorKind.UNAVAILABLE


_BY_KIND: dict[ErrorKind, type[DomainError]] = {
    cls.kind: cls
    for cls in (
        InvalidArgument,
        FailedPrecondition,
        NotFound,
        AlreadyExists,
        Conflict,
        Unauthenticated,
        PermissionDenied,
        ResourceExhausted,
        Unavailable,
    )
}


def error_of_kind(kind: str, message: str) -> DomainError:
    """The domain error of `kind` (a game's `RuleViolation.kind`, a status's kind) with
    `message`; a kind no class stands for is a plain DomainError (UNKNOWN)."""
    try:
        cls = _BY_KIND.get(ErrorKind(kind), DomainError)
    except ValueError:
        cls = DomainError
    return cls(message)
