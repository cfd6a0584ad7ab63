"""Many writers on one Redis stream, each thread on its own connection."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable

import pytest
import redis
from google.protobuf.wrappers_pb2 import StringValue

from services.shared.errors import Conflict
from services.shared.eventstore import AppendResult, EventRegistry, RedisEventStore, stream_key
from services.shared.eventstore import keys as store_keys
from tests.contract.test_eventstore_contract import text
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration

WRITERS = 32
EVENTS_PER_WRITER = 4


def registry() -> EventRegistry:
    r = EventRegistry()
    r.register(StringValue)
    return r


def run_threads(count: int, target: Callable[[int], None]) -> None:
    errors: list[BaseException] = []

    def guarded(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors[:3]


def test_racing_writers_get_exactly_one_winner_per_version_and_no_gaps(redis_url: str) -> None:
    stream = stream_key("race", uuid.uuid4().hex)
    wins: list[tuple[int, str]] = []  # (version won, writer/event)
    conflicts = Counter[int]()
    barrier = threading.Barrier(WRITERS)

    def writer(i: int) -> None:
        client = redis.Redis.from_url(redis_url)
        store = RedisEventStore(client, registry(), durability="everysec")
        barrier.wait()
        for n in range(EVENTS_PER_WRITER):
            label = f"w{i}-e{n}"
            expected = store.version(stream)
            while True:
                try:
                    result = store.append(stream, [StringValue(value=label)], expected, label)
                except Conflict as conflict:
                    assert conflict.actual_version is not None
                    assert conflict.actual_version > expected
                    conflicts[i] += 1
                    expected = conflict.actual_version
                    continue
                assert not result.deduplicated
                assert result.first_version == result.last_version == expected + 1
                wins.append((result.first_version, label))
                break
        client.close()

    run_threads(WRITERS, writer)

    total = WRITERS * EVENTS_PER_WRITER
    assert sorted(version for version, _ in wins) == list(range(1, total + 1))
    check = RedisEventStore(redis.Redis.from_url(redis_url), registry(), durability="everysec")
    events = check.read(stream)
    assert [e.version for e in events] == list(range(1, total + 1))
    labels = [text(e) for e in events]
    assert len(set(labels)) == total  # no duplicates
    assert dict(wins) == dict(enumerate(labels, start=1))  # each winner's event is at its version
    assert sum(conflicts.values()) > 0, "the writers never actually raced"


def test_a_retried_append_from_many_threads_is_written_exactly_once(redis_url: str) -> None:
    stream = stream_key("retry", uuid.uuid4().hex)
    results: list[AppendResult] = []
    barrier = threading.Barrier(WRITERS)

    def retrier(_: int) -> None:
        client = redis.Redis.from_url(redis_url)
        store = RedisEventStore(client, registry(), durability="everysec")
        barrier.wait()
        for _attempt in range(3):
            results.append(
                store.append(stream, [StringValue(value="once")], 0, "table-1/hand-1/deal")
            )
        client.close()

    run_threads(WRITERS, retrier)

    assert len(results) == WRITERS * 3
    assert {(r.first_version, r.last_version) for r in results} == {(1, 1)}
    assert sum(not r.deduplicated for r in results) == 1
    store = RedisEventStore(redis.Redis.from_url(redis_url), registry(), durability="everysec")
    assert [text(e) for e in store.read(stream)] == ["once"]


def test_idempotency_keys_are_kept_for_at_least_a_day(redis_client: redis.Redis) -> None:
    stream = stream_key("ttl", uuid.uuid4().hex)
    store = RedisEventStore(redis_client, registry(), durability="everysec")
    store.append(stream, [StringValue(value="x")], 0, "cmd")
    ttl = redis_client.ttl(store_keys.idempotency_key(stream, "cmd"))
    assert 24 * 3600 - 60 <= ttl <= 24 * 3600


def test_all_keys_of_one_aggregate_share_one_cluster_slot() -> None:
    from redis.crc import key_slot

    stream = stream_key("table", "42")
    names = [
        stream,
        store_keys.version_key(stream),
        store_keys.snapshot_key(stream),
        store_keys.idempotency_key(stream, "any/command"),
    ]
    assert len({key_slot(name.encode()) for name in names}) == 1
    assert key_slot(b"{table:42}:events") != key_slot(b"{table:43}:events")


def test_a_server_without_aof_is_reported(
    private_redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = private_redis_server.client()
    client.config_set("appendonly", "no")
    RedisEventStore(client, registry(), durability="everysec")
    assert "appendonly=no" in caplog.text


def test_subscribe_blocks_within_a_short_socket_timeout(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, socket_timeout=0.5)
    store = RedisEventStore(client, registry(), durability="everysec")
    stop = threading.Event()
    threading.Timer(0.8, stop.set).start()
    # block_ms far above the socket timeout: must not end in TimeoutError.
    assert (
        list(store.subscribe(stream_key("quiet", uuid.uuid4().hex), block_ms=5000, stop=stop)) == []
    )


def test_the_cluster_the_contract_runs_on_refuses_cross_slot_scripts() -> None:
    """Why the contract's cluster run means something: a script spanning two aggregates fails."""
    from tests.fixtures.redis_server import start_single_node_cluster

    server = start_single_node_cluster()
    try:
        client = redis.Redis.from_url(server.url)
        with pytest.raises(redis.ResponseError, match="same slot"):
            client.eval("return 1", 2, "{table:1}:events", "{table:2}:version")
        assert client.eval("return 1", 2, "{table:1}:events", "{table:1}:version") == 1
    finally:
        server.close()
