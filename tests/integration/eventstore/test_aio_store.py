"""The asyncio event store beyond the shared contract (tests/contract runs every rule on it):
what only a coroutine meets. A cancelled append never leaves a reply unread on a kept
connection and its retry lands once; a kept connection the server closed is replaced; many
appends at once on one loop each get their own connection and all land; a follower stops on
its asyncio.Event; strict durability waits for the fsync on the appending connection."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import pytest
import redis
import redis.asyncio as aioredis
from google.protobuf.wrappers_pb2 import StringValue

from services.shared.eventstore import EventRegistry, RedisEventStore, stream_key
from services.shared.eventstore.aio_redis_store import AsyncRedisEventStore
from tests.contract.test_eventstore_contract import text
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration


def registry() -> EventRegistry:
    r = EventRegistry()
    r.register(StringValue)
    return r


def new_stream() -> str:
    return stream_key("aio", uuid.uuid4().hex)


def event(value: str) -> list[StringValue]:
    return [StringValue(value=value)]


async def values(store: AsyncRedisEventStore, stream: str) -> list[str]:
    return [text(e) for e in await store.read(stream)]


async def opened(url: str, durability: str = "everysec") -> AsyncRedisEventStore:
    store = AsyncRedisEventStore(
        aioredis.Redis.from_url(url),
        registry(),
        durability="strict" if durability == "strict" else "everysec",
    )
    await store.check()
    return store


def test_a_cancelled_append_leaves_no_reply_behind_and_its_retry_lands_once(
    redis_url: str,
) -> None:
    """Cancel the append after 0, 1, 2 ... turns of the loop (before the send, between the
    send and the reply, after it): whatever got applied, the retry with the same key leaves
    exactly one copy, and the next append on the store reads its own reply, not a stale one."""

    async def scenario() -> None:
        store = await opened(redis_url)
        stream = new_stream()
        version = 0
        for turns in range(12):
            task = asyncio.create_task(
                store.append(stream, event(f"c{turns}"), version, f"c{turns}")
            )
            for _ in range(turns):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            retried = await store.append(stream, event(f"c{turns}"), version, f"c{turns}")
            assert (retried.first_version, retried.last_version) == (version + 1, version + 1)
            version += 1
            nxt = await store.append(stream, event(f"n{turns}"), version, f"n{turns}")
            assert (nxt.first_version, nxt.deduplicated) == (version + 1, False)
            version += 1
        assert await values(store, stream) == [
            name for turns in range(12) for name in (f"c{turns}", f"n{turns}")
        ]
        await store.close()

    asyncio.run(scenario())


def test_a_kept_connection_the_server_closed_is_replaced_and_the_append_lands_once(
    redis_url: str,
) -> None:
    async def scenario() -> None:
        store = await opened(redis_url)
        stream = new_stream()
        await store.append(stream, event("e1"), 0, "k1")
        admin = redis.Redis.from_url(redis_url)
        assert admin.client_kill_filter(_type="normal", skipme=True) >= 1
        result = await store.append(stream, event("e2"), 1, "k2")
        assert (result.first_version, result.deduplicated) == (2, False)
        assert await values(store, stream) == ["e1", "e2"]
        admin.close()
        await store.close()

    asyncio.run(scenario())


def test_an_append_after_the_script_cache_was_flushed_loads_the_script_again(
    redis_url: str,
) -> None:
    async def scenario() -> None:
        store = await opened(redis_url)
        stream = new_stream()
        await store.append(stream, event("e1"), 0, "k1")
        redis.Redis.from_url(redis_url).script_flush()
        assert (await store.append(stream, event("e2"), 1, "k2")).last_version == 2
        assert (await store.append(stream, event("e2"), 1, "k2")).deduplicated
        await store.close()

    asyncio.run(scenario())


def test_many_appends_at_once_on_one_loop_all_land_and_keep_few_connections(
    redis_url: str,
) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url)
        store = AsyncRedisEventStore(client, registry(), durability="everysec")
        streams = [new_stream() for _ in range(100)]
        for round_number in range(3):
            await asyncio.gather(
                *(
                    store.append(
                        stream, event(f"r{round_number}"), round_number, f"k{round_number}"
                    )
                    for stream in streams
                )
            )
        for stream in streams:
            assert await values(store, stream) == ["r0", "r1", "r2"]
        # Each append held one connection; at most 32 are kept between appends.
        assert len(client.connection_pool._in_use_connections) <= 32
        await store.close()
        assert not client.connection_pool._in_use_connections
        await client.aclose()

    asyncio.run(scenario())


def test_the_sync_and_the_asyncio_stores_write_one_stream_alike(redis_url: str) -> None:
    """A table written by a sync process and an asyncio one (a rolling upgrade): both see
    each other's versions and idempotency keys."""
    sync = RedisEventStore(redis.Redis.from_url(redis_url), registry(), durability="everysec")
    stream = new_stream()
    sync.append(stream, event("sync"), 0, "k1")

    async def scenario() -> None:
        store = await opened(redis_url)
        assert (await store.append(stream, event("sync"), 0, "k1")).deduplicated
        await store.append(stream, event("aio"), 1, "k2")
        await store.close()

    asyncio.run(scenario())
    assert [text(e) for e in sync.read(stream)] == ["sync", "aio"]
    assert sync.append(stream, event("aio"), 1, "k2").deduplicated


def test_a_follower_stops_on_its_event(redis_url: str) -> None:
    async def scenario() -> None:
        store = await opened(redis_url)
        stream = new_stream()
        await store.append(stream, event("a"), 0, "k1")
        stop = asyncio.Event()
        seen: list[int] = []

        async def follow(events: AsyncIterator[object]) -> None:
            async for record in events:
                seen.append(record.version)  # type: ignore[attr-defined]

        follower = asyncio.create_task(follow(store.subscribe(stream, 1, block_ms=50, stop=stop)))
        await store.append(stream, event("b"), 1, "k2")
        while len(seen) < 2:
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.wait_for(follower, 10)
        assert seen == [1, 2]
        await store.close()

    asyncio.run(scenario())


def test_strict_durability_waits_for_the_fsync_of_each_append(
    waitaof_server: RedisServer,
) -> None:
    async def scenario() -> None:
        store = await opened(waitaof_server.url, "strict")
        stream = new_stream()
        for version in range(5):
            await store.append(stream, event(f"e{version}"), version, f"k{version}")
        assert await values(store, stream) == [f"e{v}" for v in range(5)]
        await store.close()

    asyncio.run(scenario())
