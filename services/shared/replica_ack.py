"""Acknowledge a write only once N replicas of its master have it (Redis ``WAIT``).

Redis replicates asynchronously: a write answered inside the replication lag is lost if its
master dies before a replica has it and that replica is elected. `ReplicaAck(n, ms)` makes a
store wait, after each write, until n replicas of the aggregate's master confirm it, and raise
`Unavailable` (not acknowledged: retry with the same idempotency key) when they do not within
ms. The ledger's commits, the table's and the dealer's event-store appends all wait here.

``WAIT`` counts the replicas that reached the last write of *its own connection*, and a
cluster client picks the connection of each command itself; but a master's replication
stream is one ordered log, so one more write to the same master (a marker key under the
aggregate's hash tag, so in its slot) and ``WAIT``, pipelined on one connection to that
master, cover every write before them: the write just made, or, when a retry is answered
from its idempotency key, the first attempt's write. A retry therefore waits again, and a
first attempt lost with its master is simply written again by the retry.

A master that just lost its replica (the replica was elected, the old master has not
rejoined) acknowledges nothing until one rejoins: durability over availability, by choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster
from redis.exceptions import MovedError, SlotNotCoveredError

from services.shared.errors import Unavailable
from services.shared.settings import SettingsError, env_int

# How long a marker outlives the last wait on its aggregate: only its write matters, not the
# key, so it expires rather than staying behind for every shuffle and table ever written.
MARKER_TTL_S = 60
DEFAULT_TIMEOUT_MS = 500


@dataclass(frozen=True, slots=True)
class ReplicaAck:
    """How many replicas must confirm a write before it is acknowledged (0: do not wait), and
    how long to wait for them before answering UNAVAILABLE."""

    replicas: int = 0
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    def __post_init__(self) -> None:
        if self.replicas < 0 or self.timeout_ms < 1:
            raise ValueError(f"{self}: replicas >= 0 and timeout_ms >= 1")

    @classmethod
    def from_env(cls, prefix: str, env: Mapping[str, str] | None = None) -> ReplicaAck:
        """``<prefix>_WAIT_REPLICAS`` (0) and ``<prefix>_WAIT_REPLICAS_MS`` (500), e.g. the
        prefix ``CROUPIER_TABLE``."""
        replicas = env_int(f"{prefix}_WAIT_REPLICAS", 0, env=env)
        timeout_ms = env_int(f"{prefix}_WAIT_REPLICAS_MS", DEFAULT_TIMEOUT_MS, env=env)
        if replicas < 0 or timeout_ms < 1:
            raise SettingsError(
                f"{prefix}_WAIT_REPLICAS={replicas} / {prefix}_WAIT_REPLICAS_MS={timeout_ms}:"
                " replicas >= 0, ms >= 1"
            )
        return cls(replicas, timeout_ms)


NO_WAIT = ReplicaAck()


def marker_key(hash_tag: str) -> str:
    """The key written before WAIT, in the aggregate's slot (`hash_tag` is `{table:42}`)."""
    return f"{hash_tag}:ack"


def _commands(marker: str, ack: ReplicaAck) -> list[tuple[Any, ...]]:
    return [("SET", marker, 1, "EX", MARKER_TTL_S), ("WAIT", ack.replicas, ack.timeout_ms)]


def check(replies: Sequence[Any], ack: ReplicaAck, what: str) -> None:
    """Unavailable unless WAIT's reply counts enough replicas. A refused marker (MOVED,
    READONLY, CLUSTERDOWN: the master changed under the store) is Unavailable too: the write
    may be on a master that is going away."""
    for reply in replies:
        if isinstance(reply, redis.ResponseError):
            # (redis-py strips the MOVED word from its MovedError's message)
            word = "MOVED" if isinstance(reply, MovedError) else str(reply).split(" ")[0]
            raise Unavailable(
                f"{what} not confirmed: its Redis master is failing over ({word}); retry"
                " with the same idempotency key"
            ) from reply
    if int(replies[1]) < ack.replicas:
        raise Unavailable(
            f"{what} not confirmed by {ack.replicas} replica(s) within {ack.timeout_ms} ms;"
            " retry with the same idempotency key"
        )


# -- redis-py (threads) ------------------------------------------------------------------


def wait(client: redis.Redis | RedisCluster, hash_tag: str, ack: ReplicaAck, what: str) -> None:
    """After a write under `hash_tag`: return once `ack.replicas` replicas of its master have
    it, else raise Unavailable. Nothing to do when `ack.replicas` is 0."""
    if not ack.replicas:
        return
    marker = marker_key(hash_tag)
    replies = _exchange(client, marker, ack)
    moved = _moved(replies)
    if moved is not None and isinstance(client, RedisCluster):
        # The slot has a new master (a failover): the client learns it as its own commands
        # would (they are not what met the MOVED), and the wait goes there.
        client.nodes_manager.move_slot(moved)
        replies = _exchange(client, marker, ack)
    check(replies, ack, what)


def _exchange(client: redis.Redis | RedisCluster, marker: str, ack: ReplicaAck) -> list[Any]:
    target: redis.Redis
    if isinstance(client, RedisCluster):
        node = client.get_node_from_key(marker)  # type: ignore[no-untyped-call]
        target = client.get_redis_connection(node)
    else:
        target = client
    pipe = target.pipeline(transaction=False)
    for command in _commands(marker, ack):
        pipe.execute_command(*command)  # type: ignore[no-untyped-call]
    return pipe.execute(raise_on_error=False)


def _moved(replies: Sequence[Any]) -> MovedError | None:
    return next((r for r in replies if isinstance(r, MovedError)), None)


def wait_on(connection: Any, hash_tag: str, ack: ReplicaAck, what: str) -> None:
    """`wait` on a connection the caller holds (a raw redis-py Connection to the master that
    took the write). Every reply is read, so the connection stays clean; any failure other
    than an error reply closes it (it reconnects on its next use)."""
    if not ack.replicas:
        return
    commands = _commands(marker_key(hash_tag), ack)
    try:
        connection.send_packed_command(connection.pack_commands(commands))
        replies = [_reply(connection.read_response) for _ in commands]
    except BaseException:
        connection.disconnect()
        raise
    check(replies, ack, what)


def _reply(read: Any) -> Any:
    try:
        return read()
    except redis.ResponseError as error:
        return error


# -- redis.asyncio ------------------------------------------------------------------------


async def wait_async(
    client: aioredis.Redis | AsyncRedisCluster, hash_tag: str, ack: ReplicaAck, what: str
) -> None:
    """`wait` for asyncio callers."""
    if not ack.replicas:
        return
    marker = marker_key(hash_tag)
    if not isinstance(client, AsyncRedisCluster):
        pipe = client.pipeline(transaction=False)
        for command in _commands(marker, ack):
            pipe.execute_command(*command)
        check(await pipe.execute(raise_on_error=False), ack, what)
        return
    replies = await _exchange_async(client, marker, ack, what)
    moved = _moved(replies)
    if moved is not None:
        await client.nodes_manager.move_slot(moved)  # (as in `wait`)
        replies = await _exchange_async(client, marker, ack, what)
    check(replies, ack, what)


async def _exchange_async(
    client: AsyncRedisCluster, marker: str, ack: ReplicaAck, what: str
) -> list[Any]:
    # A client whose first command this is has no slot map yet (a no-op once it has one).
    await client.initialize()
    try:
        node = client.get_node_from_key(marker)
    except SlotNotCoveredError:
        node = None
    if node is None:
        raise Unavailable(
            f"{what} not confirmed: no master known for its slot (the cluster is failing"
            " over); retry with the same idempotency key"
        )
    connection = node.acquire_connection()
    try:
        return await _replies_async(connection, _commands(marker, ack))
    finally:
        node.release(connection)


async def wait_on_async(connection: Any, hash_tag: str, ack: ReplicaAck, what: str) -> None:
    """`wait_on` for a redis.asyncio Connection the caller holds."""
    if not ack.replicas:
        return
    check(await _replies_async(connection, _commands(marker_key(hash_tag), ack)), ack, what)


async def _replies_async(connection: Any, commands: list[tuple[Any, ...]]) -> list[Any]:
    """Send `commands` at once and read every reply (an error reply as its exception); any
    other failure closes the connection (it reconnects on its next use)."""
    try:
        await connection.send_packed_command(connection.pack_commands(commands))
        replies = []
        for _ in commands:
            try:
                replies.append(await connection.read_response())
            except redis.ResponseError as error:
                replies.append(error)
        return replies
    except BaseException:
        await connection.disconnect(nowait=True)
        raise
