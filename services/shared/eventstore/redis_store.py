"""The event store on Redis Streams: one stream per aggregate, one Lua script per append."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

import redis
from google.protobuf.message import Message
from redis.cluster import RedisCluster
from redis.connection import ConnectionInterface
from redis.exceptions import NoScriptError

from services.shared import replica_ack
from services.shared.eventstore import arguments, keys, scripts
from services.shared.eventstore import redis_commands as commands
from services.shared.eventstore.codec import decode_entry, decode_new
from services.shared.eventstore.durability import (
    STRICT_ON_CLUSTER,
    Durability,
    durability_from_env,
)
from services.shared.eventstore.interface import (
    DEFAULT_IDEMPOTENCY_TTL_S,
    READ_NEW_PAGE,
    AppendResult,
    M,
    RecordedEvent,
    follow,
)
from services.shared.eventstore.registry import EventRegistry
from services.shared.replica_ack import NO_WAIT, ReplicaAck

# Events one XRANGE of `read` fetches at a time (read itself returns all it is asked for).
_READ_PAGE = 1000
# Connections an append keeps for the next one (more are handed back to the client's pool).
_KEPT_APPEND_CONNECTIONS = 32
_log = logging.getLogger(__name__)

Entry = commands.Entry


class RedisEventStore:
    """`EventStore` on a redis-py client (decode_responses must be off: payloads are bytes)."""

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        registry: EventRegistry,
        *,
        durability: Durability | None = None,
        idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S,
        waitaof_timeout_ms: int = 2000,
        replica_ack: ReplicaAck = NO_WAIT,
    ) -> None:
        if _connection_kwargs(client).get("decode_responses"):
            raise ValueError("RedisEventStore needs a client with decode_responses=False")
        self._client = client
        # A cluster cannot wait on several aggregates' streams in one read_new (their slots
        # differ): callers that follow many streams wait on each separately there.
        self.cluster = isinstance(client, RedisCluster)
        self._registry = registry
        self.durability: Durability = durability or durability_from_env()
        self._idempotency_ttl_s = idempotency_ttl_s
        self._waitaof_timeout_ms = waitaof_timeout_ms
        # Acknowledge an append only once that many replicas of its master have it.
        self.replica_ack = replica_ack
        self._append = client.register_script(scripts.APPEND)
        # Kept append connections (see _AppendConnections) on a plain pool only: a blocking
        # pool (or a sentinel's, or one with a client-side cache) keeps redis-py's path.
        pool = client.connection_pool if isinstance(client, redis.Redis) else None
        self._connections = (
            _AppendConnections(pool)
            if type(pool) is redis.ConnectionPool and getattr(pool, "cache", None) is None
            else None
        )
        self._save_snapshot = client.register_script(scripts.SAVE_SNAPSHOT)
        if self.durability == "strict":
            if self.cluster:
                raise RuntimeError(STRICT_ON_CLUSTER)
            self._check_waitaof()
        else:
            self._warn_without_aof()

    def _warn_without_aof(self) -> None:
        """everysec durability assumes AOF on; say so loudly when the server has it off."""
        try:
            config = self._client.config_get("appendonly")
        except redis.RedisError:
            return  # CONFIG may be disabled on managed servers: nothing to check then
        if config.get("appendonly") in (b"no", "no"):
            _log.warning(
                "Redis has appendonly=no: acknowledged appends are lost on a Redis restart; "
                "run it with appendonly yes (see docs/eventstore.md)"
            )

    def _check_waitaof(self) -> None:
        try:
            self._client.execute_command("WAITAOF", 1, 0, self._waitaof_timeout_ms)  # type: ignore[no-untyped-call]
        except redis.ResponseError as exc:
            raise RuntimeError(
                "durability 'strict' needs WAITAOF (Redis >= 7.2 or valkey) with appendonly "
                f"yes, but the server said: {exc}. Use durability 'everysec' or another server"
            ) from exc

    def append(
        self,
        stream: str,
        events: Sequence[Message],
        expected_version: int,
        idempotency_key: str,
    ) -> AppendResult:
        script_keys, args = commands.append_operands(
            self._registry,
            stream,
            events,
            expected_version,
            idempotency_key,
            self._idempotency_ttl_s,
        )
        if self._connections is None:  # a cluster (or a client-side cache): redis-py's path
            reply = self._append(keys=script_keys, args=args)
            result = arguments.append_result(stream, expected_version, reply)
            if self.durability == "strict":
                # Also after a deduplicated retry: the original attempt may have failed this wait.
                self._wait_for_fsync()
            # (likewise: a replayed key waits for the first attempt's write to reach replicas)
            replica_ack.wait(self._client, keys.hash_tag(stream), self.replica_ack, "append")
            return result
        connection, reused = self._connections.take()
        try:
            try:
                reply = self._append_on(connection, script_keys, args)
            except redis.ConnectionError:
                if not reused:
                    raise
                # A kept connection the server closed while it was idle (a restart, an idle
                # timeout): the pool's readiness poll would have caught that before sending.
                # Resending on a fresh socket is safe: an append that had been applied
                # answers "dup" by its idempotency key.
                reply = self._append_on(connection, script_keys, args)
            result = arguments.append_result(stream, expected_version, reply)
            if self.durability == "strict":
                # On the connection that appended: WAITAOF waits for that client's writes.
                self._wait_for_fsync(connection)
            replica_ack.wait_on(connection, keys.hash_tag(stream), self.replica_ack, "append")
            return result
        finally:
            self._connections.give_back(connection)

    def _append_on(self, connection: Any, script_keys: list[str], args: list[Any]) -> Any:
        # The client's retry policy (reconnect and resend on a connection error) is safe here
        # for the same reason.
        return connection.retry.call_with_retry(
            lambda: self._run_append(connection, script_keys, args),
            lambda _error: connection.disconnect(),
        )

    def _run_append(self, connection: Any, script_keys: list[str], args: list[Any]) -> Any:
        """One EVALSHA of the append script on `connection`: a send and a read, nothing else
        (redis-py's command path adds a readiness poll and bookkeeping to every call, and each
        blocking call hands the GIL to another thread: this is the table's hottest write)."""
        operands = (len(script_keys), *script_keys, *args)
        try:
            return _round_trip(connection, "EVALSHA", self._append.sha, *operands)
        except NoScriptError:
            # The server lost its script cache (a restart, SCRIPT FLUSH): load it again.
            self._append.sha = _round_trip(connection, "SCRIPT", "LOAD", scripts.APPEND).decode()
            return _round_trip(connection, "EVALSHA", self._append.sha, *operands)

    def _wait_for_fsync(self, connection: Any = None) -> None:
        """WAITAOF as its own round trip. Pipelined behind the script it waits for the server's
        next cron tick (~100 ms at hz 10) instead of the fsync itself (~0.3-4 ms measured)."""
        command = ("WAITAOF", 1, 0, self._waitaof_timeout_ms)
        if connection is None:
            synced = self._client.execute_command(*command)  # type: ignore[no-untyped-call]
        else:
            synced = _round_trip(connection, *command)
        commands.check_durable(synced, self._waitaof_timeout_ms)

    def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        arguments.check_read(stream, from_version, limit)
        events: list[RecordedEvent] = []
        start = f"{from_version}-0"
        while limit is None or len(events) < limit:
            count = _READ_PAGE if limit is None else min(_READ_PAGE, limit - len(events))
            page = cast(list[Entry], self._client.xrange(stream, min=start, count=count))
            events += [decode_entry(self._registry, stream, fields) for _, fields in page]
            if len(page) < count:
                break
            start = f"{events[-1].version + 1}-0"
        return events

    def version(self, stream: str) -> int:
        raw = self._client.get(keys.version_key(stream))
        return int(cast(bytes, raw)) if raw is not None else 0

    def wait_for_replicas(self, stream: str) -> None:
        replica_ack.wait(self._client, keys.hash_tag(stream), self.replica_ack, "answer")

    def subscribe(
        self,
        stream: str,
        from_version: int = 1,
        *,
        block_ms: int = 1000,
        stop: threading.Event | None = None,
    ) -> Iterator[RecordedEvent]:
        arguments.check_read(stream, from_version, None)
        return follow(self, stream, from_version, block_ms=block_ms, stop=stop)

    def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]:
        if not after:
            return {}
        streams, block_ms = commands.read_new_streams(
            after, self.cluster, block_ms, _connection_kwargs(self._client).get("socket_timeout")
        )
        try:
            reply = self._client.xread(
                streams,
                count=READ_NEW_PAGE,
                block=block_ms,
            )
        except redis.TimeoutError:
            return {}
        return decode_new(self._registry, commands.read_new_entries(reply), known)

    def save_snapshot(
        self, stream: str, version: int, message: Message, schema_version: int = 1
    ) -> None:
        if version < 1:
            arguments.check_snapshot(stream, version, self.version(stream))
        script_keys, args = commands.snapshot_operands(stream, version, message, schema_version)
        reply = self._save_snapshot(keys=script_keys, args=args)
        commands.check_snapshot_reply(stream, version, reply)

    def load_snapshot(
        self, stream: str, message_type: type[M], schema_version: int = 1
    ) -> tuple[int, M] | None:
        raw = cast(dict[bytes, bytes], self._client.hgetall(keys.snapshot_key(stream)))
        return commands.snapshot_from_hash(stream, raw, message_type, schema_version)


def _round_trip(connection: Any, *command: Any) -> Any:
    """Send one command on `connection` and read its reply. A reply the server refused (a
    ResponseError) was read whole, so the connection stays clean; any other failure may have
    left half a command sent or half a reply unread: the socket is closed, never reused as
    it is (the connection reconnects on its next send)."""
    try:
        connection.send_command(*command)
        return connection.read_response()
    except redis.ResponseError:
        raise
    except BaseException:
        connection.disconnect()
        raise


class _AppendConnections:
    """Connections taken from the client's pool once and kept for appends (LIFO).

    The pool checks that a connection has no unread data every time it hands one out (a
    poll() per command). An append connection cannot hold any: each use ends with its whole
    reply read, or with the connection disconnected (`_run_append`), and a disconnected one
    reconnects on its next send. Kept connections stay in the pool's in-use set, so closing
    the client still closes them, and they count against its max_connections (at most
    _KEPT_APPEND_CONNECTIONS, as many as appends ever ran at once); after a fork the child
    starts with none."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self._pool = pool
        self._free: list[ConnectionInterface] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def take(self) -> tuple[ConnectionInterface, bool]:
        """A connection, and whether it was kept from an earlier append (it may have gone
        stale meanwhile) rather than checked by the pool just now."""
        with self._lock:
            if self._pid != os.getpid():
                self._free, self._pid = [], os.getpid()  # the parent's sockets stay its own
            elif self._free:
                return self._free.pop(), True
        return self._pool.get_connection(), False

    def give_back(self, connection: ConnectionInterface) -> None:
        with self._lock:
            if len(self._free) < _KEPT_APPEND_CONNECTIONS and self._pid == os.getpid():
                self._free.append(connection)
                return
        self._pool.release(connection)  # type: ignore[arg-type]


def _connection_kwargs(client: redis.Redis | RedisCluster) -> dict[str, Any]:
    if isinstance(client, RedisCluster):
        return dict(client.get_connection_kwargs())  # type: ignore[no-untyped-call]
    return dict(client.connection_pool.connection_kwargs)
