"""Domain errors, one class per gRPC status code.

Application and domain code raise these; one server interceptor (services.shared.grpc_server)
turns them into the matching status with the message unchanged. Messages are written for the
person who made the request: say what was wrong and what would be right ("it is seat 3's turn",
"raise must be between 40 and 1000").
"""

from __future__ import annotations

import grpc


class DomainError(Exception):
    """Base of every error that maps to a gRPC status. Never carries secrets in its message."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(DomainError):
    """The request itself is malformed or out of range (a bad card, an illegal amount)."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(DomainError):
    """The request is well formed but the current state does not allow it (not your turn)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(DomainError):
    """The named table, hand, shuffle or account does not exist."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(DomainError):
    """The entity the request would create exists already."""

    code = grpc.StatusCode.ALREADY_EXISTS


class Conflict(DomainError):
    """An optimistic-concurrency conflict: the expected version is not the current one.

    Maps to ABORTED, which tells a client to reload and retry.
    """

    code = grpc.StatusCode.ABORTED

    def __init__(self, message: str, *, actual_version: int | None = None) -> None:
        super().__init__(message)
        self.actual_version = actual_version


class Unauthenticated(DomainError):
    """No credentials, or credentials that are expired, forged or malformed."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(DomainError):
    """The caller is known but may not do this (acting for another seat, a player dealing)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(DomainError):
    """A limit was hit (table full, too many requests, message too large)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(DomainError):
    """A dependency (Redis, another service) cannot be reached right now; retrying may help."""

    code = grpc.StatusCode.UNAVAILABLE
