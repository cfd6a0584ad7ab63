"""Table affinity on the client side: each table's calls go to one preferred table replica,
chosen by rendezvous (highest-random-weight) hashing of the table id over the replicas, and
to the next one in that table's order when the preferred one is unavailable.

Any replica serves any table (expected versions arbitrate), so affinity is for cache
locality only: the replica that served a table's last command holds its state warm and need
not catch up from the stream. Rendezvous hashing moves only the tables of a replica that
joins or leaves (about 1/N of them), and every client computes the same preference with no
coordination.

A request with a ``table_id`` is routed by it; one without (CreateTable, ListTables, a client
stream such as Play, whose first message comes later) goes to the replicas in turn. A unary
call that meets UNAVAILABLE (the replica is down, or not reachable) is sent to the next
replica of its order: every table command carries an idempotency key, so the second replica
applies it at most once (docs/scale-out.md). Replicas whose channel is in
TRANSIENT_FAILURE are tried last. Streams are not resent: their first replica is the
preferred one that is not known to be down.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc


def score(key: str, replica: str) -> int:
    """The weight of `replica` for `key`: a 64-bit hash of both (stable across processes)."""
    digest = hashlib.blake2b(f"{key}\x00{replica}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def ranked(key: str, replicas: Sequence[str]) -> list[str]:
    """`replicas` in `key`'s order of preference: the highest weight first."""
    return sorted(replicas, key=lambda replica: (-score(key, replica), replica))


def replica_list(target: str) -> list[str]:
    """The replicas of a static list target (``host:port,host:port``), in order, each once;
    empty for one server or a ``dns:`` target (gRPC's round_robin balances those)."""
    if target.startswith("dns:") or "," not in target:
        return []
    return list(dict.fromkeys(part.strip() for part in target.split(",") if part.strip()))


class RendezvousChannel(grpc.Channel):
    """One channel per replica (`open_replica` makes each, token and TLS included), routed
    per call as the module docstring says. `served` counts the unary calls each replica
    answered (for tests and metrics)."""

    def __init__(
        self,
        replicas: Sequence[str],
        open_replica: Callable[[str], grpc.Channel],
        key_field: str = "table_id",
    ) -> None:
        if not replicas:
            raise ValueError("a rendezvous channel needs at least one replica")
        self.replicas = list(replicas)
        self.key_field = key_field
        self.channels = {replica: open_replica(replica) for replica in self.replicas}
        self.served: Counter[str] = Counter()
        self._down: set[str] = set()
        self._lock = threading.Lock()
        self._turn = itertools.count()
        self._watchers: dict[str, Callable[[grpc.ChannelConnectivity], None]] = {}
        for replica, channel in self.channels.items():
            watcher = self._watcher(replica)
            self._watchers[replica] = watcher
            channel.subscribe(watcher, try_to_connect=True)

    def _watcher(self, replica: str) -> Callable[[grpc.ChannelConnectivity], None]:
        def changed(state: grpc.ChannelConnectivity) -> None:
            if state in (
                grpc.ChannelConnectivity.TRANSIENT_FAILURE,
                grpc.ChannelConnectivity.SHUTDOWN,
            ):
                self.mark(replica, up=False)
            elif state is grpc.ChannelConnectivity.READY:
                self.mark(replica, up=True)

        return changed

    def order(self, request: object) -> list[str]:
        """The replicas to try for `request`: its key's preference, or the next turn of the
        rotation when it has none; replicas known to be down last."""
        key = getattr(request, self.key_field, "") if request is not None else ""
        if key:
            order = ranked(str(key), self.replicas)
        else:
            start = next(self._turn) % len(self.replicas)
            order = self.replicas[start:] + self.replicas[:start]
        with self._lock:
            down = set(self._down)
        return [r for r in order if r not in down] + [r for r in order if r in down]

    def mark(self, replica: str, up: bool) -> None:
        with self._lock:
            if up:
                self._down.discard(replica)
            else:
                self._down.add(replica)

    def _per_replica(
        self,
        kind: str,
        method: str,
        request_serializer: Callable[..., bytes] | None,
        response_deserializer: Callable[[bytes], Any] | None,
    ) -> dict[str, Any]:
        """The multicallable of `kind` for `method` on every replica's channel."""
        return {
            replica: getattr(channel, kind)(method, request_serializer, response_deserializer)
            for replica, channel in self.channels.items()
        }

    def unary_unary(
        self,
        method: str,
        request_serializer: Callable[..., bytes] | None = None,
        response_deserializer: Callable[[bytes], Any] | None = None,
        _registered_method: bool | None = False,
    ) -> grpc.UnaryUnaryMultiCallable[Any, Any]:
        return _UnaryUnary(
            self,
            self._per_replica("unary_unary", method, request_serializer, response_deserializer),
        )

    def unary_stream(
        self,
        method: str,
        request_serializer: Callable[..., bytes] | None = None,
        response_deserializer: Callable[[bytes], Any] | None = None,
        _registered_method: bool | None = False,
    ) -> grpc.UnaryStreamMultiCallable[Any, Any]:
        return _UnaryStream(
            self,
            self._per_replica("unary_stream", method, request_serializer, response_deserializer),
        )

    def stream_unary(
        self,
        method: str,
        request_serializer: Callable[..., bytes] | None = None,
        response_deserializer: Callable[[bytes], Any] | None = None,
        _registered_method: bool | None = False,
    ) -> grpc.StreamUnaryMultiCallable[Any, Any]:
        return _StreamUnary(
            self,
            self._per_replica("stream_unary", method, request_serializer, response_deserializer),
        )

    def stream_stream(
        self,
        method: str,
        request_serializer: Callable[..., bytes] | None = None,
        response_deserializer: Callable[[bytes], Any] | None = None,
        _registered_method: bool | None = False,
    ) -> grpc.StreamStreamMultiCallable[Any, Any]:
        # A stub makes its multicallables once; each call picks its replica (_Streaming).
        return _StreamStream(
            self,
            self._per_replica("stream_stream", method, request_serializer, response_deserializer),
        )

    def subscribe(
        self, callback: Callable[[grpc.ChannelConnectivity], None], try_to_connect: bool = False
    ) -> None:
        for channel in self.channels.values():
            channel.subscribe(callback, try_to_connect)

    def unsubscribe(self, callback: Callable[[grpc.ChannelConnectivity], None]) -> None:
        for channel in self.channels.values():
            channel.unsubscribe(callback)

    def close(self) -> None:
        for replica, channel in self.channels.items():
            channel.unsubscribe(self._watchers[replica])
            channel.close()

    def __enter__(self) -> RendezvousChannel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unavailable(error: grpc.RpcError) -> bool:
    return isinstance(error, grpc.Call) and error.code() is grpc.StatusCode.UNAVAILABLE


class _UnaryUnary(grpc.UnaryUnaryMultiCallable):  # type: ignore[type-arg]
    def __init__(
        self, channel: RendezvousChannel, calls: dict[str, grpc.UnaryUnaryMultiCallable[Any, Any]]
    ) -> None:
        self._channel = channel
        self._calls = calls

    def _each(
        self, request: object
    ) -> Iterator[tuple[str, grpc.UnaryUnaryMultiCallable[Any, Any], bool]]:
        order = self._channel.order(request)
        for n, replica in enumerate(order):
            yield replica, self._calls[replica], n == len(order) - 1

    def __call__(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return self.with_call(request, *args, **kwargs)[0]

    def with_call(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        for replica, call, last in self._each(request):
            try:
                answer = call.with_call(request, *args, **kwargs)
            except grpc.RpcError as error:
                if last or not _unavailable(error):
                    raise
                self._channel.mark(replica, up=False)
                continue  # the same request, its idempotency key included, to the next
            self._channel.mark(replica, up=True)
            self._channel.served[replica] += 1
            return answer
        raise AssertionError("unreachable: the last replica's error is raised")

    def future(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        replica = self._channel.order(request)[0]
        return self._calls[replica].future(request, *args, **kwargs)


class _UnaryStream(grpc.UnaryStreamMultiCallable):  # type: ignore[type-arg]
    def __init__(
        self, channel: RendezvousChannel, calls: dict[str, grpc.UnaryStreamMultiCallable[Any, Any]]
    ) -> None:
        self._channel = channel
        self._calls = calls

    def __call__(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        replica = self._channel.order(request)[0]
        return self._calls[replica](request, *args, **kwargs)


class _StreamStream(grpc.StreamStreamMultiCallable):  # type: ignore[type-arg]
    def __init__(
        self, channel: RendezvousChannel, calls: dict[str, grpc.StreamStreamMultiCallable[Any, Any]]
    ) -> None:
        self._channel = channel
        self._calls = calls

    def __call__(self, request_iterator: Any, *args: Any, **kwargs: Any) -> Any:
        replica = self._channel.order(None)[0]
        return self._calls[replica](request_iterator, *args, **kwargs)


class _StreamUnary(grpc.StreamUnaryMultiCallable):  # type: ignore[type-arg]
    def __init__(
        self, channel: RendezvousChannel, calls: dict[str, grpc.StreamUnaryMultiCallable[Any, Any]]
    ) -> None:
        self._channel = channel
        self._calls = calls

    def __call__(self, request_iterator: Any, *args: Any, **kwargs: Any) -> Any:
        replica = self._channel.order(None)[0]
        return self._calls[replica](request_iterator, *args, **kwargs)

    def with_call(self, request_iterator: Any, *args: Any, **kwargs: Any) -> Any:
        replica = self._channel.order(None)[0]
        return self._calls[replica].with_call(request_iterator, *args, **kwargs)

    def future(self, request_iterator: Any, *args: Any, **kwargs: Any) -> Any:
        replica = self._channel.order(None)[0]
        return self._calls[replica].future(request_iterator, *args, **kwargs)
