"""The append's kept connections: one send and one read per append, and the failures a kept
connection can meet (closed by the server, a lost script cache, a closed client) end in a
correct append, never in a lost or doubled one."""

from __future__ import annotations

import uuid

import pytest
import redis
from google.protobuf.wrappers_pb2 import StringValue

from services.shared.eventstore import EventRegistry, RedisEventStore, stream_key
from tests.contract.test_eventstore_contract import text

pytestmark = pytest.mark.integration


def registry() -> EventRegistry:
    r = EventRegistry()
    r.register(StringValue)
    return r


def values(store: RedisEventStore, stream: str) -> list[str]:
    return [text(e) for e in store.read(stream)]


def new_stream() -> str:
    return stream_key("conn", uuid.uuid4().hex)


def test_appends_reuse_one_connection_without_a_readiness_poll(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, registry(), durability="everysec")
    stream = new_stream()
    polls = 0
    original = redis.connection.Connection.can_read

    def counting_can_read(self: redis.connection.Connection, timeout: float = 0) -> bool:
        nonlocal polls
        polls += 1
        return original(self, timeout)

    with pytest.MonkeyPatch.context() as patch:  # restored on leaving the block
        patch.setattr(redis.connection.Connection, "can_read", counting_can_read)
        for version in range(20):
            store.append(stream, [StringValue(value=f"e{version}")], version, f"k{version}")
    # The pool checked the connection once, when the first append took it; never after.
    assert polls == 1
    assert len(client.connection_pool._in_use_connections) == 1
    assert values(store, stream) == [f"e{v}" for v in range(20)]
    client.close()


def test_a_kept_connection_the_server_closed_is_replaced_and_the_append_lands_once(
    redis_url: str,
) -> None:
    client = redis.Redis.from_url(redis_url, retry_on_timeout=False)
    store = RedisEventStore(client, registry(), durability="everysec")
    stream = new_stream()
    store.append(stream, [StringValue(value="e1")], 0, "k1")
    admin = redis.Redis.from_url(redis_url)
    name = f"append-{uuid.uuid4().hex[:8]}"
    (kept,) = client.connection_pool._in_use_connections
    kept.send_command("CLIENT", "SETNAME", name)
    assert kept.read_response() == b"OK"
    # CLIENT KILL TYPE normal SKIPME yes
    assert admin.client_kill_filter(_type="normal", skipme=True) >= 1
    result = store.append(stream, [StringValue(value="e2")], 1, "k2")
    assert (result.first_version, result.deduplicated) == (2, False)
    assert values(store, stream) == ["e1", "e2"]
    admin.close()
    client.close()


def test_an_append_after_the_script_cache_was_flushed_loads_the_script_again(
    redis_url: str,
) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, registry(), durability="everysec")
    stream = new_stream()
    store.append(stream, [StringValue(value="e1")], 0, "k1")
    client.script_flush()
    assert store.append(stream, [StringValue(value="e2")], 1, "k2").last_version == 2
    assert store.append(stream, [StringValue(value="e2")], 1, "k2").deduplicated
    assert values(store, stream) == ["e1", "e2"]
    client.close()


def test_closing_the_client_closes_the_kept_connections_and_a_later_append_reconnects(
    redis_url: str,
) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, registry(), durability="everysec")
    stream = new_stream()
    store.append(stream, [StringValue(value="e1")], 0, "k1")
    (kept,) = client.connection_pool._in_use_connections
    client.close()
    assert kept._sock is None
    assert store.append(stream, [StringValue(value="e2")], 1, "k2").last_version == 2
    assert values(store, stream) == ["e1", "e2"]
    client.close()


def test_a_refused_append_leaves_its_connection_clean_for_the_next(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisEventStore(client, registry(), durability="everysec")
    stream = new_stream()
    client.set(stream, "not a stream")  # the script's XREVRANGE fails: WRONGTYPE
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        store.append(stream, [StringValue(value="e1")], 0, "k1")
    client.delete(stream)
    assert store.append(stream, [StringValue(value="e1")], 0, "k1").last_version == 1
    assert len(client.connection_pool._in_use_connections) == 1
    assert values(store, stream) == ["e1"]
    client.close()


def test_a_blocking_pool_keeps_redis_py_s_path_and_gets_its_connections_back(
    redis_url: str,
) -> None:
    pool = redis.BlockingConnectionPool.from_url(redis_url, max_connections=2, timeout=1)
    client = redis.Redis(connection_pool=pool)
    store = RedisEventStore(client, registry(), durability="everysec")
    stream = new_stream()
    for version in range(3):
        store.append(stream, [StringValue(value=f"e{version}")], version, f"k{version}")
    # every connection it made is back in its queue: nothing held from a pool that can run dry
    idle = [connection for connection in pool.pool.queue if connection is not None]
    assert idle and len(idle) == len(pool._connections)
    assert values(store, stream) == ["e0", "e1", "e2"]
    client.close()
