"""Server interceptors every croupier gRPC server installs, outermost first:

1. `MetricsInterceptor` — request count by service/method/code and a latency histogram.
2. `ErrorInterceptor` — the one place domain errors become gRPC statuses (by the one table of
   `services.shared.status`); a storage
   connection that is down (Redis refused, dropped, timed out, loading) becomes UNAVAILABLE;
   anything else becomes INTERNAL with a generic message and a logged traceback (no
   internals leak). A call the client cancelled (or abandoned) is normal: whatever its
   handler raises then ends it as CANCELLED, with no log above debug.
   Every message is cut to a size a client accepts (`errors.bounded`).
3. `AuthInterceptor` — verifies the bearer token and binds the caller's `Principal` for the
   duration of the call (health and reflection are exempt so probes need no token).

Each wraps the behaviour of unary and streaming handlers alike. For a server-streaming RPC the
wrapped behaviour is a generator, so errors raised mid-stream are mapped too and the latency
observed is the stream's whole lifetime.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import structlog

from services.shared import auth
from services.shared.errors import DomainError, Unauthenticated, bounded
from services.shared.metrics import REQUEST_LATENCY, REQUESTS
from services.shared.redis_connection import STORAGE_DOWN, storage_down_reason
from services.shared.status import status_of

log = structlog.get_logger(__name__)

Behavior = Callable[[Any, grpc.ServicerContext], Any]
# Given the behaviour, whether it streams its response, and the full method name
# ("/pkg.Service/Method"), return the replacement behaviour.
Wrapper = Callable[[Behavior, bool, str], Behavior]

EXEMPT_PREFIXES = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.v1alpha.ServerReflection/",
    "/grpc.reflection.v1.ServerReflection/",
)


def split_method(full_method: str) -> tuple[str, str]:
    """("/croupier.table.v1.TableService/Join") -> ("croupier.table.v1.TableService", "Join")."""
    service, _, method = full_method.lstrip("/").partition("/")
    return service, method


def rewrap_handler(
    handler: grpc.RpcMethodHandler[Any, Any], wrap: Callable[[Any, bool, str], Any], method: str
) -> Any:
    """A copy of `handler` whose behaviour is wrapped, whatever its streaming kind (the
    grpc.aio interceptors use it too: a handler's four kinds are the same there)."""
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(
            wrap(handler.unary_unary, False, method),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(
            wrap(handler.unary_stream, True, method),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(
            wrap(handler.stream_unary, False, method),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    assert handler.stream_stream is not None
    return grpc.stream_stream_rpc_method_handler(
        wrap(handler.stream_stream, True, method),
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


class _WrappingInterceptor(grpc.ServerInterceptor):
    def __init__(self) -> None:
        # intercept_service runs for every call; wrapping once per method handler keeps
        # building closures and handler objects off the hot path.
        self._wrapped: dict[str, tuple[Any, Any]] = {}

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or not self.applies_to(method):
            return handler
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            wrapped: grpc.RpcMethodHandler[Any, Any] = cached[1]
            return wrapped
        wrapped = rewrap_handler(handler, self.wrap, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def applies_to(self, method: str) -> bool:
        return True

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        raise NotImplementedError


def _status_code(context: grpc.ServicerContext) -> Any:
    # ServicerContext.code() exists at runtime (grpcio >= 1.38) but not in the type stubs.
    return getattr(context, "code")()  # noqa: B009


def _code_name(context: grpc.ServicerContext) -> str:
    code = _status_code(context)
    if isinstance(code, grpc.StatusCode):
        return code.name
    return "OK" if code is None else str(code)


class MetricsInterceptor(_WrappingInterceptor):
    """Count every RPC by final status code and observe its latency in seconds."""

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        service, name = split_method(method)
        latency = REQUEST_LATENCY.labels(service, name)

        def record(
            context: grpc.ServicerContext, started: float, failed: bool, cancelled: bool = False
        ) -> None:
            code = _code_name(context)
            if code == "OK" and (cancelled or not context.is_active()):
                # The client cancelled (a stream it no longer reads, a deadline it gave up
                # on): however its handler stopped, that is the cancellation, not a fault.
                code = "CANCELLED"
            elif failed and code == "OK":
                code = "UNKNOWN"
            REQUESTS.labels(service, name, code).inc()
            latency.observe(time.perf_counter() - started)

        if streaming:

            def stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                started, failed, cancelled = time.perf_counter(), False, False
                try:
                    yield from behavior(request, context)
                except GeneratorExit:
                    # gRPC stopped pulling: the client cancelled or went away mid-stream.
                    cancelled = True
                    raise
                except BaseException:
                    failed = True
                    raise
                finally:
                    record(context, started, failed, cancelled)

            return stream

        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            started, failed = time.perf_counter(), False
            try:
                return behavior(request, context)
            except BaseException:
                failed = True
                raise
            finally:
                record(context, started, failed)

        return unary


# Errors of the storage connection itself (redis-py raises them for a refused or dropped
# connection, a timeout, a server loading its data): the service's own adapters map the ones
# they expect; this is the net under every other read.
# (A Redis Cluster failing over answers CLUSTERDOWN or TRYAGAIN: the same condition.)
_STORAGE_DOWN = STORAGE_DOWN


def _abort_for(exc: BaseException, context: grpc.ServicerContext, method: str) -> None:
    """Turn `exc` into the call's status; always raises (context.abort does)."""
    if not context.is_active():
        # The client cancelled or went away (a request iterator raises grpc.RpcError then,
        # and a handler may fail on what it left half done): normal, and nobody is left to
        # answer. An abort is the one way out gRPC takes quietly (anything else raised it
        # logs with a traceback, unless it is the iterator's own error).
        log.debug("call cancelled by the client", method=method, error=repr(exc)[:200])
        context.abort(grpc.StatusCode.CANCELLED, "the client cancelled the call")
    if isinstance(exc, DomainError):
        context.abort(status_of(exc), bounded(exc.message))
    if _status_code(context) not in (None, grpc.StatusCode.OK):
        # The servicer already aborted with a status of its own: keep it.
        raise exc
    if isinstance(exc, grpc.RpcError) and not context.is_active():
        # Reading the request stream failed because the client cancelled or went away (a
        # closed Play stream, grpcurl's reflection stream): nobody is left to answer.
        log.info("client left mid-stream", method=method)
        raise exc
    if isinstance(exc, _STORAGE_DOWN):
        # Redis down, restarting or still loading its AOF: a condition to wait out, not a
        # bug. Commands are idempotent by key, so the caller's retry is safe.
        log.warning("storage unreachable", method=method, error=repr(exc))
        context.abort(
            grpc.StatusCode.UNAVAILABLE,
            f"storage unreachable ({storage_down_reason(exc)}): retry shortly; a command retried"
            " with the same idempotency key is applied at most once",
        )
    error_id = uuid.uuid4().hex[:12]
    log.error("unexpected error in rpc", method=method, error_id=error_id, exc_info=exc)
    context.abort(grpc.StatusCode.INTERNAL, f"internal error (error id {error_id})")


class ErrorInterceptor(_WrappingInterceptor):
    """Map DomainError subclasses to their status with the message unchanged."""

    def wrap(self, behavior: Behavior, streaming: bool, method: str) -> Behavior:
        if streaming:

            def stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                try:
                    yield from behavior(request, context)
                except GeneratorExit:
                    raise
                except Exception as exc:
                    _abort_for(exc, context, method)

            return stream

        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return behavior(request, context)
            except Exception as exc:
                _abort_for(exc, context, method)

        return unary


def _bearer_token(context: grpc.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == auth.METADATA_KEY:
            text = value if isinstance(value, str) else value.decode()
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated("authorization metadata must be 'Bearer <token>'")
            return token.strip()
    raise Unauthenticated("no credentials: send 'authorization: Bearer <token>' metadata")


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

            def stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                principal = verify(_bearer_token(context))
                token = auth.set_current_principal(principal)
                try:
                    yield from behavior(request, context)
                finally:
                    _unbind(token)

            return stream

        def unary(request: Any, context: grpc.ServicerContext) -> Any:
            principal = verify(_bearer_token(context))
            token = auth.set_current_principal(principal)
            try:
                return behavior(request, context)
            finally:
                _unbind(token)

        return unary


def _unbind(token: Any) -> None:
    try:
        auth.reset_current_principal(token)
    except ValueError:
        # A stream closed from another thread's context: clear rather than leak the
        # principal into the next call served by this thread.
        auth.set_current_principal(None)


def default_interceptors(auth_key: str | auth.Credentials) -> list[grpc.ServerInterceptor]:
    """The interceptor stack in the order grpc.server() expects (outermost first)."""
    return [MetricsInterceptor(), ErrorInterceptor(), AuthInterceptor(auth_key)]
