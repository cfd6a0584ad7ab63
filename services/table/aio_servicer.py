"""TableService on grpc.aio: every stream a coroutine, every move on the event loop.

WatchTable and Play are async streams: an open stream holds no thread (a WatchTable waits on
its hub's loop event, fanout.alisten; a Play stream waits for its next request), so one
process serves thousands of them. Moves (Act, and each Act of a Play stream) go to the
table's single writer on the loop (aio_commands.py: the shared command path with awaited
adapters), and so does GetTableView (the cached table plus one awaited read); the other
unary RPCs (joins, leaves, timeouts, the other reads) run the synchronous
`TableServicer` on the `commands` pool, with the call's context (the caller's principal)
copied in, as one of the table's writers (after the steps of the moves before it, so a read
sees them, and never interleaved with a move's steps). Both keep one append per command,
guarded by the loaded version and keyed, so every guarantee of the sync server holds.

Cancellation: a caller that goes away while its command runs cancels only the await; the
command finishes in its writer or its thread (a command is never left half done by a cancel)
and a retry with the same idempotency key gets its result. A Play stream answers its Acts in
order; a refused Act is answered with its status and the stream goes on; a Play or
WatchTable stream that is dropped ends its coroutine at once (its hub forgets it).
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
from services.shared.auth import Principal, current_principal
from services.shared.status import status_of
from services.table.aio_commands import AioCommands
from services.table.servicer import TableServicer
from services.table.watch_wire import WatchMessage

T = TypeVar("T")
Context = grpc.aio.ServicerContext[Any, Any]


SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"]


class AioTableServicer:
    """Every unary RPC of TableService is the sync servicer's method run on the command pool
    (set per method of the service's descriptor, so an RPC added to the service is served
    here as soon as the sync servicer has it); Play and WatchTable are async streams."""

    def __init__(
        self,
        servicer: TableServicer,
        commands: ThreadPoolExecutor,
        moves: AioCommands | None = None,
    ) -> None:
        self._sync = servicer
        self._commands = commands
        # (None: moves run the synchronous path on the pool too, as every other command)
        self._moves = moves
        for method in SERVICE.methods:
            if not (method.client_streaming or method.server_streaming):
                setattr(self, method.name, self._unary(getattr(servicer, method.name)))
        if moves is not None:
            self.Act = self._act
            self.GetTableView = self._get_table_view

    async def run_blocking(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` on the command pool, in a copy of this call's context."""
        call = functools.partial(contextvars.copy_context().run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._commands, call)

    def _unary(self, method: Callable[[Any, Any], T]) -> Callable[[Any, Context], Awaitable[T]]:
        async def unary(request: Any, context: Context) -> T:
            table_id = getattr(request, "table_id", None)
            if self._moves is not None and isinstance(table_id, str) and table_id:
                return await self._moves.exclusive(
                    table_id, lambda: self.run_blocking(method, request, None)
                )
            return await self.run_blocking(method, request, None)

        return unary

    async def _get_table_view(
        self, request: table_pb2.GetTableViewRequest, context: Context
    ) -> table_pb2.GetTableViewResponse:
        """A read on the loop, as one of the table's writers (it sees the steps of the moves
        before it): the cached table plus the events after it, one awaited read and no
        thread (a table not cached yet is loaded once on the pool, as for a move)."""
        assert self._moves is not None
        principal = current_principal()
        load = self._moves.effects.load
        table = await self._moves.exclusive(
            request.table_id, lambda: load(request.table_id, fresh=True)
        )
        return table_pb2.GetTableViewResponse(view=self._sync.watcher.view(table, principal))

    async def _act(self, request: table_pb2.ActRequest, context: Context) -> table_pb2.ActResponse:
        return await self.act_for(request, current_principal())

    async def act_for(
        self, request: table_pb2.ActRequest, principal: Principal
    ) -> table_pb2.ActResponse:
        """One move: on the table's writer, or the synchronous path on the pool."""
        if self._moves is None:
            return await self.run_blocking(self._sync.act_for, request, principal)
        call = self._sync.act_call(request, principal)
        return table_pb2.ActResponse(version=await self._moves.act(*call))

    async def Play(  # noqa: N802 - gRPC method name
        self, request_iterator: AsyncIterator[table_pb2.PlayRequest], context: Context
    ) -> AsyncIterator[table_pb2.PlayResponse]:
        """Each request one Act, answered in order; the caller is authenticated once, for the
        stream; a refused Act is answered with its status and the stream goes on."""
        principal = current_principal()
        async for request in request_iterator:
            key = request.act.idempotency_key
            try:
                applied = await self.act_for(request.act, principal)
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
