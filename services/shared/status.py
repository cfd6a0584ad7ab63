"""The one table from error kinds to gRPC status codes.

The error interceptor (services/shared/interceptors.py) answers every RPC's DomainError with
`status_of(error)` and its message unchanged; `Play` answers each refused move with the same
code; the services' gRPC clients turn a dependency's status back into the domain error of its
kind (`error_from_status`). Everything that refuses (the applications, the pure cores, the
games' rules) says only what kind of refusal it is (services/shared/errors.py).
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from services.shared.errors import DomainError, ErrorKind, Unavailable, error_of_kind

STATUS_CODES: Mapping[ErrorKind, grpc.StatusCode] = {
    ErrorKind.INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    ErrorKind.FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    ErrorKind.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ErrorKind.ALREADY_EXISTS: grpc.StatusCode.ALREADY_EXISTS,
    ErrorKind.ABORTED: grpc.StatusCode.ABORTED,
    ErrorKind.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    ErrorKind.PERMISSION_DENIED: grpc.StatusCode.PERMISSION_DENIED,
    ErrorKind.RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ErrorKind.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ErrorKind.UNKNOWN: grpc.StatusCode.UNKNOWN,
}
_KINDS = {code: kind for kind, code in STATUS_CODES.items()}


def status_of(error: DomainError) -> grpc.StatusCode:
    """The status code a refusal is answered with."""
    return STATUS_CODES[error.kind]


# A dependency's refusals that mean the same to our own caller. Any other status of a
# dependency (unreachable, aborted, our own service credentials refused, a bug there) is
# Unavailable to our caller: the command is safe to retry with its key.
PASSED_ON = frozenset(
    {
        ErrorKind.INVALID_ARGUMENT,
        ErrorKind.FAILED_PRECONDITION,
        ErrorKind.NOT_FOUND,
        ErrorKind.ALREADY_EXISTS,
        ErrorKind.PERMISSION_DENIED,
        ErrorKind.RESOURCE_EXHAUSTED,
    }
)


def error_from_status(code: grpc.StatusCode, message: str) -> DomainError:
    """A dependency's status as the domain error our caller gets (see PASSED_ON)."""
    kind = _KINDS.get(code)
    if kind is None or kind not in PASSED_ON:
        return Unavailable(message)
    return error_of_kind(kind, message)
