"""Readable exceptions for every refusal a croupier service answers.

Every failed call raises a `CroupierError` subclass named after its status code, carrying the
server's own message (what was wrong and what would be right) and the method that failed:

    try:
        tables.join("t1", buy_in=5)
    except InvalidArgument as exc:
        print(exc)          # TableService.JoinTable: INVALID_ARGUMENT: buy-in must be 20..400
        exc.message         # the server's words alone

A refused move on a `Play` stream raises the same classes, from the stream's `PlayError`.
"""

from __future__ import annotations

from typing import ClassVar

import grpc


class CroupierError(Exception):
    """A call a croupier service refused (or could not answer)."""

    code: ClassVar[grpc.StatusCode] = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str, *, method: str = "") -> None:
        self.message = message
        self.method = method
        where = f"{method}: " if method else ""
        super().__init__(f"{where}{self.code.name}: {message}")


class InvalidArgument(CroupierError):
    """The request itself is wrong: fix it before sending it again."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(CroupierError):
    """Well formed, but not now (not your turn, a timeout not due yet, a seat not taken)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(CroupierError):
    """No such table, round, account or shuffle."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(CroupierError):
    """What the request would create exists already (a table id that is taken)."""

    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(CroupierError):
    """The caller's token does not allow this (another player's seat or account)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class Unauthenticated(CroupierError):
    """No token, or an expired or forged one: get a new token."""

    code = grpc.StatusCode.UNAUTHENTICATED


class Aborted(CroupierError):
    """The table moved on since the version the caller named: look again, decide again."""

    code = grpc.StatusCode.ABORTED


class ResourceExhausted(CroupierError):
    """The request asks for more than the service gives (an exact equity run too large)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(CroupierError):
    """The service (or its storage) cannot be reached now: the same command may be retried."""

    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(CroupierError):
    """No answer within the call's deadline (the command may or may not have applied: retry
    it with the same idempotency key to find out)."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


class Cancelled(CroupierError):
    """The call was cancelled (by this client, or the stream was closed)."""

    code = grpc.StatusCode.CANCELLED


class Internal(CroupierError):
    """A fault inside the service; the message says what the service could tell."""

    code = grpc.StatusCode.INTERNAL


_BY_CODE: dict[grpc.StatusCode, type[CroupierError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        FailedPrecondition,
        NotFound,
        AlreadyExists,
        PermissionDenied,
        Unauthenticated,
        Aborted,
        ResourceExhausted,
        Unavailable,
        DeadlineExceeded,
        Cancelled,
        Internal,
    )
}
_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def error_for(code: grpc.StatusCode, message: str, method: str = "") -> CroupierError:
    """The exception for a status `code` (CroupierError itself for a code without a class)."""
    cls = _BY_CODE.get(code)
    if cls is None:
        error = CroupierError(f"{code.name}: {message}", method=method)
        return error
    return cls(message, method=method)


def from_rpc_error(exc: grpc.RpcError, method: str = "") -> CroupierError:
    """A failed gRPC call as the exception of its status, with the server's message."""
    if isinstance(exc, grpc.Call):
        code = exc.code()
        message = exc.details() or ""
    else:  # an RpcError that is not a call carries no status: treat it as unreachable
        code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
    if code is grpc.StatusCode.UNAVAILABLE and not message:
        message = "the service cannot be reached"
    return error_for(code, _readable(code, message), method)


def from_status_number(number: int, message: str, method: str = "") -> CroupierError:
    """A `PlayError` (status as google.rpc.Code's number) as its exception."""
    code = _BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)
    return error_for(code, message, method)


def _readable(code: grpc.StatusCode, message: str) -> str:
    """gRPC's own transport messages, shortened to what a person can act on."""
    if code is grpc.StatusCode.UNAVAILABLE and (
        "failed to connect" in message.lower() or "connection refused" in message.lower()
    ):
        return f"the service cannot be reached ({message.splitlines()[0][:160]})"
    return message
