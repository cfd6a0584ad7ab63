"""Acknowledged appends survive `kill -9` of Redis and a restart on the same AOF."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest
import redis
from google.protobuf.wrappers_pb2 import StringValue

from services.shared.eventstore import EventRegistry, RedisEventStore, stream_key
from services.shared.eventstore.durability import Durability
from services.shared.redis_embedded import find_server_binaries
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration


def registry() -> EventRegistry:
    r = EventRegistry()
    r.register(StringValue)
    return r


def store_on(server: RedisServer, durability: Durability = "everysec") -> RedisEventStore:
    # Short timeouts and no retries: the writer must notice the crash, not hide it.
    client = redis.Redis.from_url(server.url, socket_timeout=2, retry_on_timeout=False)
    return RedisEventStore(client, registry(), durability=durability)


def append_until_killed(
    store: RedisEventStore, stream: str, acknowledged: list[int], stop: threading.Event
) -> None:
    """Append one event at a time until Redis goes away, recording each acknowledged version."""
    while not stop.is_set():
        version = len(acknowledged)
        event = StringValue(value=f"e{version + 1}")
        try:
            result = store.append(stream, [event], version, f"c{version}")
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return
        acknowledged.append(result.last_version)


def crash_during_appends(
    server: RedisServer, durability: Durability
) -> tuple[list[int], list[int]]:
    """Kill -9 the server while a writer appends; returns (acknowledged, present after restart)."""
    stream = stream_key("crash", uuid.uuid4().hex)
    store = store_on(server, durability)
    stop = threading.Event()
    acknowledged: list[int] = []
    writer = threading.Thread(target=append_until_killed, args=(store, stream, acknowledged, stop))
    writer.start()
    deadline = time.monotonic() + 10
    while len(acknowledged) < 30 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()
    stop.set()
    writer.join(timeout=10)
    server.restart()
    present = [e.version for e in store_on(server).read(stream)]
    return list(acknowledged), present


@pytest.fixture
def always_fsync_server() -> Iterator[RedisServer]:
    with RedisServer.private_server(appendfsync="always") as server:
        yield server


def test_everysec_keeps_appends_acknowledged_more_than_a_second_before_a_kill(
    private_redis_server: RedisServer,
) -> None:
    stream = stream_key("crash", uuid.uuid4().hex)
    store = store_on(private_redis_server)
    for version in range(50):
        store.append(stream, [StringValue(value=f"e{version + 1}")], version, f"c{version}")
    time.sleep(1.5)  # everysec: past the next once-a-second fsync
    private_redis_server.kill()
    private_redis_server.restart()
    assert [e.version for e in store_on(private_redis_server).read(stream)] == list(range(1, 51))
    # The same store carries on: it reconnects and reloads its script into the new process.
    assert store.append(stream, [StringValue(value="e51")], 50, "c50").last_version == 51


def test_appendfsync_always_loses_no_acknowledged_append_when_killed_mid_stream(
    always_fsync_server: RedisServer,
) -> None:
    acknowledged, present = crash_during_appends(always_fsync_server, "everysec")
    assert len(acknowledged) >= 30, "the writer barely ran before the crash"
    assert present[: len(acknowledged)] == acknowledged
    assert present == list(range(1, len(present) + 1))  # no gaps after AOF replay
    # At most the one append in flight when the kill hit may be present without an ack.
    assert len(present) - len(acknowledged) <= 1


def test_strict_mode_loses_no_acknowledged_append_when_killed_mid_stream(
    waitaof_server: RedisServer,
) -> None:
    acknowledged, present = crash_during_appends(waitaof_server, "strict")
    assert len(acknowledged) >= 30, "the writer barely ran before the crash"
    assert present[: len(acknowledged)] == acknowledged
    assert present == list(range(1, len(present) + 1))
    assert len(present) - len(acknowledged) <= 1


def test_strict_mode_refuses_to_start_on_a_server_without_waitaof() -> None:
    old = [b for b in find_server_binaries() if not b.supports_waitaof]
    if not old:
        pytest.skip("every server binary here supports WAITAOF: nothing to refuse")
    from services.shared.redis_embedded import EmbeddedRedis

    server = EmbeddedRedis(old[0], own_session=False).start()
    try:
        with pytest.raises(RuntimeError, match=r"durability 'strict' needs WAITAOF"):
            RedisEventStore(redis.Redis.from_url(server.url), registry(), durability="strict")
    finally:
        server.close()


def test_strict_mode_refuses_to_start_when_aof_is_off(waitaof_server: RedisServer) -> None:
    client = waitaof_server.client()
    client.config_set("appendonly", "no")
    with pytest.raises(RuntimeError, match=r"appendonly"):
        RedisEventStore(client, registry(), durability="strict")
