"""The event store on Redis Streams for asyncio callers (redis.asyncio): the same keys, Lua
scripts, entry layout and errors as `RedisEventStore`, so both read and write the same streams
and either may serve a table another process writes with the other."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, cast

import redis
import redis.asyncio as aioredis
from google.protobuf.message import Message
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError

from services.shared import replica_ack
from services.shared.eventstore import arguments, keys, scripts
from services.shared.eventstore import redis_commands as commands
from services.shared.eventstore.aio_interface import follow
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
)
from services.shared.eventstore.registry import EventRegistry
from services.shared.replica_ack import NO_WAIT, ReplicaAck

_READ_PAGE = 1000  # events one XRANGE of `read` fetches at a time
# Connections appends keep for the next ones (more go back to the client's pool).
_KEPT_APPEND_CONNECTIONS = 32
_log = logging.getLogger(__name__)

Entry = commands.Entry
AsyncClient = aioredis.Redis | RedisCluster


class AsyncRedisEventStore:
    """`AsyncEventStore` on a redis.asyncio client (decode_responses off: payloads are bytes).
    Build it inside the event loop that will use it; call `check()` once before serving
    (durability checks need a round trip) and `close()` when done."""

    def __init__(
        self,
        client: AsyncClient,
        registry: EventRegistry,
        *,
        durability: Durability | None = None,
        idempotency_ttl_s: int = DEFAULT_IDEMPOTENCY_TTL_S,
        waitaof_timeout_ms: int = 2000,
        replica_ack: ReplicaAck = NO_WAIT,
    ) -> None:
        if _connection_kwargs(client).get("decode_responses"):
            raise ValueError("AsyncRedisEventStore needs a client with decode_responses=False")
        self._client = client
        self.cluster = isinstance(client, RedisCluster)
        self._registry = registry
        self.durability: Durability = durability or durability_from_env()
        if self.durability == "strict" and self.cluster:
            raise RuntimeError(STRICT_ON_CLUSTER)
        self._idempotency_ttl_s = idempotency_ttl_s
        self._waitaof_timeout_ms = waitaof_timeout_ms
        # Acknowledge an append only once that many replicas of its master have it.
        self.replica_ack = replica_ack
        self._append_sha = _sha(scripts.APPEND)
        self._save_snapshot = client.register_script(scripts.SAVE_SNAPSHOT)
        pool = client.connection_pool if isinstance(client, aioredis.Redis) else None
        self._connections = (
            _KeptConnections(pool) if type(pool) is aioredis.ConnectionPool else None
        )

    async def check(self) -> None:
        """strict durability needs WAITAOF; everysec warns when the server has AOF off."""
        if self.durability == "strict":
            try:
                await self._client.execute_command("WAITAOF", 1, 0, self._waitaof_timeout_ms)
            except redis.ResponseError as exc:
                raise RuntimeError(
                    "durability 'strict' needs WAITAOF (Redis >= 7.2 or valkey) with appendonly "
                    f"yes, but the server said: {exc}. Use durability 'everysec' or another "
                    "server"
                ) from exc
            return
        try:
            config = await self._client.config_get("appendonly")
        except redis.RedisError:
            return  # CONFIG may be disabled on managed servers
        if config.get("appendonly") in (b"no", "no"):
            _log.warning(
                "Redis has appendonly=no: acknowledged appends are lost on a Redis restart; "
                "run it with appendonly yes (see docs/eventstore.md)"
            )

    async def close(self) -> None:
        if self._connections is not None:
            await self._connections.close()

    async def append(
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
        operands = (len(script_keys), *script_keys, *args)
        if self._connections is None:  # a cluster: redis-py routes by the keys
            reply = await self._cluster_append(operands)
            result = arguments.append_result(stream, expected_version, reply)
            if self.durability == "strict":
                await self._wait_for_fsync(None)
            # (also after a replayed key: the first attempt's write must reach the replicas)
            await replica_ack.wait_async(
                self._client, keys.hash_tag(stream), self.replica_ack, "append"
            )
            return result
        connection, reused = await self._connections.take()
        try:
            try:
                reply = await self._evalsha(connection, operands)
            except (redis.ConnectionError, ConnectionError):
                if not reused:
                    raise
                # A kept connection the server closed while idle: resending on a fresh socket
                # is safe, an append that was applied answers "dup" by its idempotency key.
                reply = await self._evalsha(connection, operands)
            result = arguments.append_result(stream, expected_version, reply)
            if self.durability == "strict":
                # On the connection that appended: WAITAOF waits for that client's writes.
                await self._wait_for_fsync(connection)
            await replica_ack.wait_on_async(
                connection, keys.hash_tag(stream), self.replica_ack, "append"
            )
            return result
        finally:
            await self._connections.give_back(connection)

    async def _evalsha(self, connection: Any, operands: tuple[Any, ...]) -> Any:
        try:
            return await _round_trip(connection, "EVALSHA", self._append_sha, *operands)
        except NoScriptError:
            # The server lost its script cache (a restart, SCRIPT FLUSH): load it again.
            await _round_trip(connection, "SCRIPT", "LOAD", scripts.APPEND)
            return await _round_trip(connection, "EVALSHA", self._append_sha, *operands)

    async def _cluster_append(self, operands: tuple[Any, ...]) -> Any:
        try:
            return await self._client.evalsha(self._append_sha, *operands)
        except NoScriptError:
            return await self._client.eval(scripts.APPEND, *operands)

    async def _wait_for_fsync(self, connection: Any) -> None:
        """WAITAOF as its own round trip (pipelined it would wait for the next cron tick)."""
        command = ("WAITAOF", 1, 0, self._waitaof_timeout_ms)
        if connection is None:
            synced = await self._client.execute_command(*command)
        else:
            synced = await _round_trip(connection, *command)
        commands.check_durable(synced, self._waitaof_timeout_ms)

    async def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        arguments.check_read(stream, from_version, limit)
        events: list[RecordedEvent] = []
        start = f"{from_version}-0"
        while limit is None or len(events) < limit:
            count = _READ_PAGE if limit is None else min(_READ_PAGE, limit - len(events))
            page = cast(list[Entry], await self._client.xrange(stream, min=start, count=count))
            events += [decode_entry(self._registry, stream, fields) for _, fields in page]
            if len(page) < count:
                break
            start = f"{events[-1].version + 1}-0"
        return events

    async def version(self, stream: str) -> int:
        raw = await self._client.get(keys.version_key(stream))
        return int(cast(bytes, raw)) if raw is not None else 0

    async def wait_for_replicas(self, stream: str) -> None:
        await replica_ack.wait_async(
            self._client, keys.hash_tag(stream), self.replica_ack, "answer"
        )

    def subscribe(
        self,
        stream: str,
        from_version: int = 1,
        *,
        block_ms: int = 1000,
        stop: asyncio.Event | None = None,
    ) -> AsyncIterator[RecordedEvent]:
        arguments.check_read(stream, from_version, None)
        return follow(self, stream, from_version, block_ms=block_ms, stop=stop)

    async def read_new(
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
            reply = await self._client.xread(
                streams,
                count=READ_NEW_PAGE,
                block=block_ms,
            )
        except redis.TimeoutError:
            return {}
        return decode_new(self._registry, commands.read_new_entries(reply), known)

    async def save_snapshot(
        self, stream: str, version: int, message: Message, schema_version: int = 1
    ) -> None:
        if version < 1:
            arguments.check_snapshot(stream, version, await self.version(stream))
        script_keys, args = commands.snapshot_operands(stream, version, message, schema_version)
        reply = await self._save_snapshot(keys=script_keys, args=args)
        commands.check_snapshot_reply(stream, version, reply)

    async def load_snapshot(
        self, stream: str, message_type: type[M], schema_version: int = 1
    ) -> tuple[int, M] | None:
        raw = cast(dict[bytes, bytes], await self._client.hgetall(keys.snapshot_key(stream)))
        return commands.snapshot_from_hash(stream, raw, message_type, schema_version)


def _sha(script: str) -> str:
    return hashlib.sha1(script.encode(), usedforsecurity=False).hexdigest()


async def _round_trip(connection: Any, *command: Any) -> Any:
    """One command and its reply on `connection`. A reply the server refused was read whole
    (the connection stays clean); any other failure, a cancellation included, may have left
    half a command sent or a reply unread: the socket is closed (it reconnects on its next
    send), never reused as it is."""
    try:
        await connection.send_command(*command)
        return await connection.read_response()
    except redis.ResponseError:
        raise
    except BaseException:
        await connection.disconnect(nowait=True)
        raise


class _KeptConnections:
    """Connections taken from the client's pool once and kept for appends (LIFO), as the sync
    store keeps them: the pool's lock and readiness check are skipped on every append. A kept
    connection never holds unread data (each use reads its whole reply or disconnects it).
    They stay in the pool's in-use set until `close`; after a fork the child keeps none."""

    def __init__(self, pool: aioredis.ConnectionPool) -> None:
        self._pool = pool
        self._free: list[Any] = []
        self._pid = os.getpid()

    async def take(self) -> tuple[Any, bool]:
        if self._pid != os.getpid():
            self._free, self._pid = [], os.getpid()
        elif self._free:
            return self._free.pop(), True
        return await self._pool.get_connection(), False  # type: ignore[no-untyped-call]

    async def give_back(self, connection: Any) -> None:
        if len(self._free) < _KEPT_APPEND_CONNECTIONS and self._pid == os.getpid():
            self._free.append(connection)
            return
        await self._pool.release(connection)

    async def close(self) -> None:
        free, self._free = self._free, []
        for connection in free:
            await self._pool.release(connection)


def _connection_kwargs(client: AsyncClient) -> dict[str, Any]:
    if isinstance(client, RedisCluster):
        return dict(client.get_connection_kwargs())
    return dict(client.connection_pool.connection_kwargs)
