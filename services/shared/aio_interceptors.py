"""The interceptors of `interceptors.py` for grpc.aio servers, in the same order and with the
same behaviour: metrics (count by final code, latency), errors (a DomainError becomes its
status by `services.shared.status`, storage down becomes UNAVAILABLE, anything else INTERNAL
with an error id and a logged traceback) and auth (the bearer token verified, the caller's
`Principal` bound as `auth.current_principal()` for the call: a contextvar, so it follows the
call into every coroutine and into `asyncio.to_thread` / `run_blocking` work).

An aio behaviour is a coroutine function (unary response) or an async generator function
(streamed response). A cancelled call (the client went away) raises CancelledError inside
it: never mapped to a status, counted as CANCELLED.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import grpc.aio

from services.shared import auth
from services.shared.errors import DomainError, bounded
from services.shared.interceptors import (
    _STORAGE_DOWN,
    EXEMPT_PREFIXES,
    _bearer_token,
    log,
    rewrap_handler,
    split_method,
)
from services.shared.metrics import REQUEST_LATENCY, REQUESTS
from services.shared.redis_connection import storage_down_reason
from services.shared.status import status_of

Behavior = Callable[..., Any]
Wrapper = Callable[[Behavior, bool, str], Behavior]
Context = grpc.aio.ServicerContext[Any, Any]


def as_coroutine(behavior: Behavior, streaming: bool) -> Behavior:
    """`behavior` as the aio server runs it: a coroutine function (unary) or an async
    generator function (streaming). A synchronous one (a sync servicer registered on the aio
    server) runs in a worker thread, in a copy of the call's context (the principal goes
    with it): each call, or each item of its stream, is one `asyncio.to_thread`."""
    if inspect.iscoroutinefunction(behavior) or inspect.isasyncgenfunction(behavior):
        return behavior
    if not streaming:

        async def unary(request: Any, context: Context) -> Any:
            return await asyncio.to_thread(behavior, request, context)

        return unary

    async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
        items = iter(await asyncio.to_thread(behavior, request, context))
        done = object()
        while (item := await asyncio.to_thread(next, items, done)) is not done:
            yield item

    return stream


def _wrap_handler(handler: grpc.RpcMethodHandler[Any, Any], wrap: Wrapper, method: str) -> Any:
    def wrap_async(behavior: Behavior, streaming: bool, method: str) -> Behavior:
        return wrap(as_coroutine(behavior, streaming), streaming, method)

    return rewrap_handler(handler, wrap_async, method)


class _WrappingInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Any, Any]] = {}  # wrapped once per method handler

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not self.applies_to(method):
            return handler
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            wrapped: grpc.RpcMethodHandler[Any, Any] = cached[1]
            return wrapped
        wrapped = _wrap_handler(handler, self.wrap, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def applies_to(self, method: str) -> bool:
        return True

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        raise NotImplementedError


def _code_name(context: Context) -> str:
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "OK" if code is None else str(code)


class _Recording:
    """One call's metrics, recorded once: by the error path just before it sends the status
    (an aio abort sends it at once, so a client could otherwise see its error before it is
    counted), else when the behaviour ends."""

    __slots__ = ("done", "record")

    def __init__(self, record: Callable[[bool, bool], None]) -> None:
        self.record = record
        self.done = False

    def now(self, failed: bool = False, cancelled: bool = False) -> None:
        if not self.done:
            self.done = True
            self.record(failed, cancelled)


# The running call's recording (each aio call is its own task: its own context).
_RECORDING: contextvars.ContextVar[_Recording | None] = contextvars.ContextVar(
    "croupier_aio_recording", default=None
)


class MetricsInterceptor(_WrappingInterceptor):
    """Count every RPC by final status code and observe its latency in seconds."""

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        service, name = split_method(method)
        latency = REQUEST_LATENCY.labels(service, name)

        def recording(context: Context) -> _Recording:
            started = time.perf_counter()

            def record(failed: bool, cancelled: bool) -> None:
                code = _code_name(context)
                if cancelled and code == "OK":
                    code = "CANCELLED"
                elif failed and code == "OK":
                    code = "UNKNOWN"
                REQUESTS.labels(service, name, code).inc()
                latency.observe(time.perf_counter() - started)

            call = _Recording(record)
            _RECORDING.set(call)
            return call

        if streaming:

            async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
                call = recording(context)
                try:
                    async for item in behavior(request, context):
                        yield item
                except (asyncio.CancelledError, GeneratorExit):
                    call.now(cancelled=True)
                    raise
                except BaseException:
                    call.now(failed=True)
                    raise
                finally:
                    call.now()

            return stream

        async def unary(request: Any, context: Context) -> Any:
            call = recording(context)
            try:
                return await behavior(request, context)
            except asyncio.CancelledError:
                call.now(cancelled=True)
                raise
            except BaseException:
                call.now(failed=True)
                raise
            finally:
                call.now()

        return unary


async def _abort(context: Context, code: grpc.StatusCode, message: str) -> None:
    """End the call with `code`; set first, so the metrics see it (an aio context reports
    no code for an abort of its own). The message is cut to a size a client accepts."""
    message = bounded(message)
    context.set_code(code)
    context.set_details(message)
    call = _RECORDING.get()
    if call is not None:
        call.now(failed=True)
    await context.abort(code, message)


async def _abort_for(exc: Exception, context: Context, method: str) -> None:
    """Turn `exc` into the call's status; always raises (context.abort does)."""
    if isinstance(exc, grpc.aio.AbortError):
        raise exc  # the behaviour aborted with a status of its own: keep it
    if isinstance(exc, DomainError):
        await _abort(context, status_of(exc), exc.message)
    if isinstance(exc, _STORAGE_DOWN):
        log.warning("storage unreachable", method=method, error=repr(exc))
        await _abort(
            context,
            grpc.StatusCode.UNAVAILABLE,
            f"storage unreachable ({storage_down_reason(exc)}): retry shortly; a command retried"
            " with the same idempotency key is applied at most once",
        )
    error_id = uuid.uuid4().hex[:12]
    log.error("unexpected error in rpc", method=method, error_id=error_id, exc_info=exc)
    await _abort(context, grpc.StatusCode.INTERNAL, f"internal error (error id {error_id})")


class ErrorInterceptor(_WrappingInterceptor):
    """Map DomainError subclasses to their status with the message unchanged."""

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        if streaming:

            async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
                try:
                    async for item in behavior(request, context):
                        yield item
                except Exception as exc:
                    await _abort_for(exc, context, method)

            return stream

        async def unary(request: Any, context: Context) -> Any:
            try:
                return await behavior(request, context)
            except Exception as exc:
                await _abort_for(exc, context, method)

        return unary


class AuthInterceptor(_WrappingInterceptor):
    """Verify the caller's token and make its principal `auth.current_principal()`."""

    def __init__(self, key: str | auth.Credentials) -> None:
        super().__init__()
        self._tokens = auth.VerifiedTokens(key)

    def applies_to(self, method: str) -> bool:
        return not method.startswith(EXEMPT_PREFIXES)

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        verify = self._tokens.verify
        if streaming:

            async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
                principal = verify(_bearer_token(context))  # type: ignore[arg-type]
                # (each call is its own task with its own context: nothing to unbind)
                auth.set_current_principal(principal)
                async for item in behavior(request, context):
                    yield item

            return stream

        async def unary(request: Any, context: Context) -> Any:
            principal = verify(_bearer_token(context))  # type: ignore[arg-type]
            auth.set_current_principal(principal)
            return await behavior(request, context)

        return unary


def default_interceptors(auth_key: str | auth.Credentials) -> list[grpc.aio.ServerInterceptor]:
    """The interceptor stack in the order grpc.aio.server() expects (outermost first)."""
    return [MetricsInterceptor(), ErrorInterceptor(), AuthInterceptor(auth_key)]
