"""A player's Acts as messages on one long-lived Play stream, with the unary Act's shape.

    acts = PlayActs(stub, metadata)               # one per player (the stream is theirs)
    response = acts.Act(request, timeout=5.0)     # an ActResponse, or a grpc.RpcError

`Act(request, metadata=..., timeout=...)` takes and answers what `TableServiceStub.Act` does,
so `remote.play_turn` (the SDK's and the workers' bots) sends its Acts on the stream without
knowing it: a refusal the table answers on the stream (PlayResponse.error) is raised as a
`PlayRefusal`, a grpc.RpcError and grpc.Call with the status code and message a unary Act
would have failed with. One Act at a time per stream (answered in order, as Play answers);
the stream opens at the first Act and again after any failure (the table went away, a
timeout, the stream grew older than `max_age_s`, so a token that expires is replaced), and
an Act whose stream broke is sent again on a fresh one only by its caller: its idempotency
key makes that retry safe. An Act costs the table one stream message each way instead of a
unary call (docs/table.md: Play).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc

Metadata = Sequence[tuple[str, str | bytes]]
# Streams older than this are closed and opened afresh at the next Act (the token a stream
# was opened with is checked once, at its start).
MAX_AGE_S = 600.0
_CODES = {code.value[0]: code for code in grpc.StatusCode}


class PlayRefusal(grpc.RpcError, grpc.Call):
    """An Act the table refused on the stream, as the unary call's error."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self._code = code
        self._message = message

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def initial_metadata(self) -> tuple[()]:
        return ()

    def trailing_metadata(self) -> tuple[()]:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return False


class _Stream:
    def __init__(self, stub: table_pb2_grpc.TableServiceStub, metadata: Metadata) -> None:
        self.requests: queue.Queue[table_pb2.PlayRequest | None] = queue.Queue()
        self.call: Any = stub.Play(iter(self.requests.get, None), metadata=tuple(metadata))
        self.responses: Iterator[table_pb2.PlayResponse] = self.call
        self.opened = time.monotonic()

    def close(self) -> None:
        self.requests.put(None)
        self.call.cancel()


class PlayActs:
    """Acts of one player on their Play stream (thread-safe: one Act at a time)."""

    def __init__(
        self,
        stub: table_pb2_grpc.TableServiceStub,
        metadata: Metadata = (),
        *,
        max_age_s: float = MAX_AGE_S,
    ) -> None:
        self._stub = stub
        self._metadata = tuple(metadata)
        self._max_age_s = max_age_s
        self._stream: _Stream | None = None
        self._lock = threading.Lock()
        self.streams_opened = 0

    def Act(  # noqa: N802 - the unary stub's name, which callers use
        self,
        request: table_pb2.ActRequest,
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> table_pb2.ActResponse:
        """Send `request` on the stream; its ActResponse, or the refusal raised. `metadata`,
        when given, is the stream's (a stream is opened with the metadata of its first Act:
        one PlayActs serves one player)."""
        with self._lock:
            stream = self._open(metadata)
            timer = threading.Timer(timeout, stream.call.cancel) if timeout else None
            stream.requests.put(table_pb2.PlayRequest(act=request))
            if timer is not None:
                timer.start()
            try:
                response = next(stream.responses)
            except StopIteration:
                self._drop()
                raise PlayRefusal(
                    grpc.StatusCode.UNAVAILABLE, "the table ended the Play stream: act again"
                ) from None
            except grpc.RpcError as exc:
                self._drop()
                if timer is not None and not timer.is_alive() and _cancelled(exc):
                    raise PlayRefusal(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"no answer on the Play stream within {timeout} s",
                    ) from exc
                raise
            finally:
                if timer is not None:
                    timer.cancel()
        if response.WhichOneof("result") == "error":
            code = _CODES.get(response.error.code, grpc.StatusCode.UNKNOWN)
            raise PlayRefusal(code, response.error.message)
        return response.act

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _open(self, metadata: Metadata | None) -> _Stream:
        stream = self._stream
        if stream is not None and time.monotonic() - stream.opened > self._max_age_s:
            self._drop()
            stream = None
        if stream is None:
            stream = self._stream = _Stream(self._stub, self._metadata or metadata or ())
            self.streams_opened += 1
        return stream

    def _drop(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


def _cancelled(exc: grpc.RpcError) -> bool:
    return isinstance(exc, grpc.Call) and exc.code() is grpc.StatusCode.CANCELLED


class TableCalls(Protocol):
    """What a bot's turn calls (remote.play_turn): GetTableView and Act, unary-shaped (a
    TableServiceStub, or ActsOnPlay)."""

    @property
    def GetTableView(self) -> Callable[..., table_pb2.GetTableViewResponse]: ...  # noqa: N802

    @property
    def Act(self) -> Callable[..., table_pb2.ActResponse]: ...  # noqa: N802


class ActsOnPlay:
    """GetTableView on the stub, Act on the player's Play stream (`PlayActs`)."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub, acts: PlayActs) -> None:
        self._stub = stub
        self.acts = acts

    def GetTableView(  # noqa: N802
        self,
        request: table_pb2.GetTableViewRequest,
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> table_pb2.GetTableViewResponse:
        return self._stub.GetTableView(
            request, metadata=tuple(metadata) if metadata else None, timeout=timeout
        )

    def Act(  # noqa: N802
        self,
        request: table_pb2.ActRequest,
        metadata: Metadata | None = None,
        timeout: float | None = None,
    ) -> table_pb2.ActResponse:
        return self.acts.Act(request, metadata=metadata, timeout=timeout)
