"""TableService on grpc.aio: every stream a coroutine, the command path in a bounded pool.

WatchTable and Play are async streams: an open stream holds no thread (a WatchTable waits on
its hub's loop event, fanout.alisten; a Play stream waits for its next request), so one
process serves thousands of them; a thread is taken only while a command or a read runs.
Each command (a unary RPC, or one Act of a Play stream) runs the table application's
synchronous command path (`TableServicer`, the same code the sync server runs) on the
`commands` pool, with the call's context (the caller's principal) copied in. The command
path keeps its per-table lock, its one append per command and its idempotency keys, so
every guarantee of the sync server holds unchanged.

Cancellation: a caller that goes away while its command runs cancels only the await; the
command finishes in its thread (a command is never left half done by a cancel) and a retry
with the same idempotency key gets its result. A Play stream answers its Acts in order; a
refused Act is answered with its status and the stream goes on; a Play or WatchTable stream
that is dropped ends its coroutine at once (its hub forgets it).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc.aio

from croupier.table.v1 import table_pb2
from services.shared import errors
from services.shared.auth import current_principal
from services.shared.status import status_of
from services.table.servicer import TableServicer
from services.table.watch_wire import WatchMessage

T = TypeVar("T")
Context = grpc.aio.ServicerContext[Any, Any]


SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"]


class AioTableServicer:
    """Every unary RPC of TableService is the sync servicer's method run on the command pool
    (set per method of the service's descriptor, so an RPC added to the service is served
    here as soon as the sync servicer has it); Play and WatchTable are async streams."""

    def __init__(self, servicer: TableServicer, commands: ThreadPoolExecutor) -> None:
        self._sync = servicer
        self._commands = commands
        for method in SERVICE.methods:
            if not (method.client_streaming or method.server_streaming):
                setattr(self, method.name, self._unary(getattr(servicer, method.name)))

    async def run_blocking(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` on the command pool, in a copy of this call's context."""
        call = functools.partial(contextvars.copy_context().run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._commands, call)

    def _unary(self, method: Callable[[Any, Any], T]) -> Callable[[Any, Context], Awaitable[T]]:
        async def unary(request: Any, context: Context) -> T:
            return await self.run_blocking(method, request, None)

        return unary

    async def Play(  # noqa: N802 - gRPC method name
        self, request_iterator: AsyncIterator[table_pb2.PlayRequest], context: Context
    ) -> AsyncIterator[table_pb2.PlayResponse]:
        """Each request one Act, answered in order; the caller is authenticated once, for the
        stream; a refused Act is answered with its status and the stream goes on."""
        principal = current_principal()
        async for request in request_iterator:
            key = request.act.idempotency_key
            try:
                applied = await self.run_blocking(self._sync.act_for, request.act, principal)
            except errors.DomainError as exc:
                yield table_pb2.PlayResponse(
                    idempotency_key=key,
                    error=table_pb2.PlayError(code=status_of(exc).value[0], message=exc.message),
                )
                continue
            yield table_pb2.PlayResponse(idempotency_key=key, act=applied)

    async def WatchTable(  # noqa: N802
        self, request: table_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[WatchMessage]:
        principal = current_principal()
        async for message in self._sync.watcher.awatch(
            request.table_id, principal, request.from_version, request.batch, self.run_blocking
        ):
            yield message
