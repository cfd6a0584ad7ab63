"""Watchers of one table share its events and each get every event, in order, in batches;
one follower reads every watched table for the process."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence

import pytest
from google.protobuf.message import Message
from google.protobuf.wrappers_pb2 import BoolValue

from croupier.poker.v1 import events_pb2 as poker_pb2
from services.shared.eventstore import (
    EventDecodingError,
    EventRegistry,
    EventStore,
    InMemoryEventStore,
    RecordedEvent,
)
from services.table import codec
from services.table.fanout import MAX_BATCH, Decode, HubEvent, TableFanout

STREAM = "{table:t1}:events"


def events(listener: Iterable[Sequence[HubEvent]]) -> Generator[HubEvent, None, None]:
    """The events of a listener's batches, one at a time."""
    for batch in listener:
        yield from batch


def append(store: EventStore, n: int, start: int) -> None:
    for i in range(n):
        store.append(STREAM, [poker_pb2.TimedOut(seat=i % 6)], start + i, f"k{start + i}")


def test_every_watcher_gets_every_event_from_its_own_start_version() -> None:
    store = InMemoryEventStore(codec.registry())
    append(store, 5, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    seen: dict[int, list[int]] = {1: [], 4: [], 9: []}

    def watch(start: int) -> None:
        for record in events(fanout.listen(STREAM, start, stop)):
            seen[start].append(record.version)
            if record.version == 40:
                return

    threads = [threading.Thread(target=watch, args=(s,)) for s in seen]
    for t in threads:
        t.start()
    append(store, 35, 5)
    for t in threads:
        t.join(timeout=10)
    stop.set()
    for start, versions in seen.items():
        assert versions == list(range(start, 41))


def test_a_hub_stops_when_its_last_watcher_leaves() -> None:
    store = InMemoryEventStore(codec.registry())
    append(store, 2, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    listener = fanout.listen(STREAM, 1, stop)
    assert [e.version for e in next(listener)] == [1, 2]
    follower = fanout._followers[""]
    listener.close()
    assert STREAM not in fanout._hubs
    follower.join(timeout=5)  # its next wait finds no table left to follow
    assert not follower.is_alive() and fanout._followers == {}


def test_events_published_by_this_process_reach_watchers_once_and_undecoded() -> None:
    """A published batch is delivered as given (no decode); the follower's copy is skipped."""
    store = InMemoryEventStore(codec.registry())
    append(store, 1, 0)
    decoded: list[int] = []

    def decode(message: Message) -> Message:
        decoded.append(1)
        return message

    fanout = TableFanout(store, block_ms=20, decode=decode)
    stop = threading.Event()
    listener = events(fanout.listen(STREAM, 2, stop))
    got: list[HubEvent] = []
    reader = threading.Thread(target=lambda: got.extend(next(listener) for _ in range(2)))
    reader.start()
    while STREAM not in fanout._hubs:
        threading.Event().wait(0.005)
    messages = [poker_pb2.TimedOut(seat=1), poker_pb2.TimedOut(seat=2)]
    own = [object(), object()]  # stand-ins for the decoded events: delivered as they are
    # Published before the follower can read them back (in the service the append commits
    # first; either order ends the same, this one makes the test deterministic).
    fanout.publish(STREAM, 2, own, messages, 1234)
    store.append(STREAM, messages, 1, "k-own")
    reader.join(timeout=10)
    assert [e.event for e in got] == own
    assert [e.recorded_at_ms for e in got] == [1234, 1234]
    store.append(STREAM, [poker_pb2.TimedOut(seat=3)], 3, "k-next")
    after = next(listener)
    assert after.version == 4  # versions 2 and 3 were not delivered a second time
    assert len(decoded) == 1  # only the event this process did not publish was decoded
    listener.close()
    stop.set()


def test_a_publish_on_the_watchers_own_loop_wakes_them_without_the_threadsafe_hop() -> None:
    """A move's publish on the aio runtime runs on the loop its watchers wait on: it wakes
    them directly (no self-pipe write); a publish from another thread still goes through
    call_soon_threadsafe. Both deliver the batch."""
    store = InMemoryEventStore(codec.registry())
    append(store, 1, 0)
    fanout = TableFanout(store, block_ms=20)
    hops: list[int] = []

    async def run_blocking(function: Callable[..., object], *args: object) -> object:
        return function(*args)

    async def scenario() -> list[int]:
        loop = asyncio.get_running_loop()
        threadsafe = loop.call_soon_threadsafe

        def counted(*args: object, **kwargs: object) -> asyncio.Handle:
            hops.append(1)
            return threadsafe(*args, **kwargs)  # type: ignore[arg-type]

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        listener = fanout.alisten(STREAM, 2, run_blocking)
        first = asyncio.ensure_future(anext(listener))
        while STREAM not in fanout._hubs or not fanout._hubs[STREAM].loops:
            await asyncio.sleep(0)
        fanout.publish(STREAM, 2, [object()], [poker_pb2.TimedOut(seat=1)], 1)
        got = [entry.version for entry in await asyncio.wait_for(first, 10)]
        assert hops == []  # woken on its own loop, directly
        second = asyncio.ensure_future(anext(listener))
        await asyncio.sleep(0)
        other = threading.Thread(
            target=fanout.publish, args=(STREAM, 3, [object()], [poker_pb2.TimedOut(seat=2)], 2)
        )
        other.start()
        got += [entry.version for entry in await asyncio.wait_for(second, 10)]
        other.join()
        assert hops  # another thread's publish hops onto the loop
        await listener.aclose()
        return got

    assert asyncio.run(scenario()) == [2, 3]


def test_a_published_batch_after_a_gap_waits_for_the_follower_and_keeps_the_order() -> None:
    """Another instance wrote versions 2-3, this one 4: watchers see 2, 3, 4 in order."""
    store = InMemoryEventStore(codec.registry())
    append(store, 1, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    listener = events(fanout.listen(STREAM, 2, stop))
    hub_ready = threading.Event()
    versions: list[int] = []

    def read() -> None:
        hub_ready.set()
        versions.extend(next(listener).version for _ in range(3))

    reader = threading.Thread(target=read)
    reader.start()
    hub_ready.wait()
    while STREAM not in fanout._hubs:
        threading.Event().wait(0.005)
    hub = fanout._hubs[STREAM]
    # The follower has not seen versions 2-3 yet when this process publishes version 4.
    fanout.publish(STREAM, 4, ["mine"], [poker_pb2.TimedOut(seat=4)], 1)
    assert hub.last_version == 1  # not taken out of order
    append(store, 3, 1)
    reader.join(timeout=10)
    assert versions == [2, 3, 4]
    listener.close()
    stop.set()


def test_publishing_to_a_table_nobody_watches_here_does_nothing() -> None:
    store = InMemoryEventStore(codec.registry())
    fanout = TableFanout(store, block_ms=20)
    fanout.publish(STREAM, 1, ["x"], [poker_pb2.TimedOut(seat=0)], 1)
    assert fanout._hubs == {}


class _FailingSubscription(InMemoryEventStore):
    """A store whose subscription breaks once (a lost Redis connection), then works."""

    def __init__(self, registry: EventRegistry) -> None:
        super().__init__(registry)
        self.failures = 1

    def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("redis connection lost")
        return super().read_new(after, block_ms=block_ms, known=known)


def test_a_hub_failure_reaches_its_watchers_and_the_next_watch_starts_a_fresh_hub() -> None:
    store = _FailingSubscription(codec.registry())
    append(store, 2, 0)
    fanout = TableFanout(store, block_ms=20)
    give_up = threading.Event()
    timer = threading.Timer(5, give_up.set)  # (a watcher the failure never reaches ends here)
    timer.start()
    with pytest.raises(ConnectionError, match="lost"):
        list(events(fanout.listen(STREAM, 1, give_up)))
    timer.cancel()
    assert STREAM not in fanout._hubs  # the failed watcher left; nobody reuses the broken hub
    listener = events(fanout.listen(STREAM, 1, threading.Event()))
    append(store, 1, 2)
    assert [next(listener).version for _ in range(3)] == [1, 2, 3]
    listener.close()


class _Recording(InMemoryEventStore):
    """A store that records every read_new: which streams from which versions."""

    def __init__(self, registry: EventRegistry, *, cluster: bool = False) -> None:
        super().__init__(registry)
        self.cluster = cluster
        self.reads: list[dict[str, int]] = []

    def read_new(
        self,
        after: Mapping[str, int],
        *,
        block_ms: int = 1000,
        known: Callable[[str, int], int] | None = None,
    ) -> dict[str, list[RecordedEvent]]:
        self.reads.append(dict(after))
        return super().read_new(after, block_ms=block_ms, known=known)


def counting_decode(decoded: list[object]) -> Decode:
    def decode(message: Message) -> Message:
        decoded.append(message)
        return message

    return decode


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_one_follower_waits_on_every_watched_table_at_once() -> None:
    store = _Recording(codec.registry())
    other = "{table:t2}:events"
    append(store, 1, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    listeners = {s: events(fanout.listen(s, 1, stop)) for s in (STREAM, other)}
    first = next(listeners[STREAM])  # (joins STREAM's hub; then other's)
    threading.Thread(target=lambda: next(listeners[other]), daemon=True).start()
    wait_for(lambda: other in fanout._hubs)
    store.append(other, [poker_pb2.TimedOut(seat=0)], 0, "k-other")
    wait_for(lambda: fanout._hubs[other].last_version == 1)
    assert first.version == 1 and list(fanout._followers) == [""]
    wait_for(lambda: any(set(read) == {STREAM, other} for read in store.reads))
    stop.set()


def test_on_a_cluster_each_table_has_its_own_follower() -> None:
    store = _Recording(codec.registry(), cluster=True)
    other = "{table:t2}:events"
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    for s in (STREAM, other):
        threading.Thread(target=lambda s=s: list(fanout.listen(s, 1, stop)), daemon=True).start()
    wait_for(lambda: len(fanout._followers) == 2)
    append(store, 1, 0)
    wait_for(lambda: fanout._hubs[STREAM].last_version == 1)
    assert all(len(read) == 1 for read in store.reads)  # one stream per wait
    stop.set()


def test_the_follower_reads_on_from_what_publish_delivered() -> None:
    store = _Recording(codec.registry())
    append(store, 1, 0)
    fanout = TableFanout(store, block_ms=20, settle_ms=0, pause_ms=0)
    stop = threading.Event()
    threading.Thread(target=lambda: list(fanout.listen(STREAM, 2, stop)), daemon=True).start()
    wait_for(lambda: STREAM in fanout._hubs)
    fanout.publish(STREAM, 2, ["a", "b"], [poker_pb2.TimedOut(seat=1)] * 2, 1)
    wait_for(lambda: any(read.get(STREAM) == 3 for read in store.reads))
    stop.set()


def test_the_follower_gives_publish_time_before_decoding_what_redis_woke_it_for() -> None:
    """Redis answers the follower's wait as soon as an append commits, often before the
    appending thread has published: it waits for publish instead of decoding a copy."""
    store = InMemoryEventStore(codec.registry())
    append(store, 1, 0)
    decoded: list[object] = []
    fanout = TableFanout(store, block_ms=20, decode=counting_decode(decoded), settle_ms=5000)
    stop = threading.Event()
    listener = events(fanout.listen(STREAM, 2, stop))
    got: list[HubEvent] = []
    reader = threading.Thread(target=lambda: got.extend(next(listener) for _ in range(2)))
    reader.start()
    wait_for(lambda: STREAM in fanout._hubs)
    messages = [poker_pb2.TimedOut(seat=1), poker_pb2.TimedOut(seat=2)]
    store.append(STREAM, messages, 1, "k-own")  # commits: the follower wakes
    time.sleep(0.1)
    own = [object(), object()]
    fanout.publish(STREAM, 2, own, messages, 1234)  # the appending thread, a little later
    reader.join(timeout=10)
    assert [e.event for e in got] == own and decoded == []
    stop.set()


def test_another_instances_writes_are_decoded_and_delivered_after_the_settle_time() -> None:
    store = InMemoryEventStore(codec.registry())
    decoded: list[object] = []
    fanout = TableFanout(store, block_ms=20, decode=counting_decode(decoded), settle_ms=50)
    stop = threading.Event()
    listener = fanout.listen(STREAM, 1, stop)
    threading.Timer(0.05, lambda: append(store, 3, 0)).start()  # nobody publishes these
    versions: list[int] = []
    for batch in listener:
        versions += [e.version for e in batch]
        if versions[-1] == 3:
            break
    assert versions == [1, 2, 3] and len(decoded) == 3
    stop.set()


def test_own_appends_wake_the_follower_once_per_pause_not_once_per_append() -> None:
    store = _Recording(codec.registry())
    fanout = TableFanout(store, block_ms=20, settle_ms=5, pause_ms=100)
    stop = threading.Event()
    threading.Thread(target=lambda: list(fanout.listen(STREAM, 1, stop)), daemon=True).start()
    wait_for(lambda: STREAM in fanout._hubs)
    reads_before = len(store.reads)
    started = time.monotonic()
    for version in range(1, 31):  # 30 appends of this process in ~0.3 s
        message = poker_pb2.TimedOut(seat=0)
        fanout.publish(STREAM, version, [message], [message], 1)
        store.append(STREAM, [message], version - 1, f"k{version}")
        time.sleep(0.01)
    elapsed = time.monotonic() - started
    assert fanout._hubs[STREAM].last_version == 30
    assert len(store.reads) - reads_before <= elapsed / 0.1 + 2
    stop.set()


def test_a_run_of_own_appends_backs_the_follower_off_and_another_writer_resets_it() -> None:
    """Each wake that brings only this process's own appends doubles the follower's wait, up
    to max_pause_ms: far fewer reads than one per pause_ms. Another writer's events still
    arrive (decoded by the follower) and bring the wait back to pause_ms."""
    store = _Recording(codec.registry())
    fanout = TableFanout(store, block_ms=20, settle_ms=5, pause_ms=10, max_pause_ms=80)
    stop = threading.Event()
    got: list[int] = []
    threading.Thread(
        target=lambda: got.extend(e.version for e in events(fanout.listen(STREAM, 1, stop))),
        daemon=True,
    ).start()
    wait_for(lambda: STREAM in fanout._hubs)
    reads_before = len(store.reads)
    started = time.monotonic()
    for version in range(1, 161):  # this process's appends, ~200 a second
        message = poker_pb2.TimedOut(seat=0)
        fanout.publish(STREAM, version, [message], [message], 1)
        store.append(STREAM, [message], version - 1, f"own-{version}")
        time.sleep(0.005)
    elapsed = time.monotonic() - started
    assert len(store.reads) - reads_before <= elapsed / 0.08 + 6  # (~elapsed / 0.01 before)
    assert fanout.pauses[""] == pytest.approx(0.08)
    append(store, 2, 160)  # another instance's: nobody here publishes them
    wait_for(lambda: len(got) == 162)
    assert got == list(range(1, 163))
    wait_for(lambda: fanout.pauses[""] == pytest.approx(0.01))
    stop.set()


def test_an_event_this_build_cannot_read_ends_only_its_own_tables_watchers() -> None:
    """A newer instance wrote a type this one does not know to one table: the follower fails
    that table's hub and goes on following the others."""
    newer = codec.registry()
    newer.register(BoolValue)
    writer = InMemoryEventStore(newer)
    store = InMemoryEventStore(codec.registry(), shared_with=writer)
    other = "{table:t2}:events"
    fanout = TableFanout(store, block_ms=20, settle_ms=0, pause_ms=0)
    stop = threading.Event()
    failures: list[BaseException] = []
    got: list[int] = []

    def watch_broken() -> None:
        try:
            list(fanout.listen(STREAM, 1, stop))
        except EventDecodingError as exc:
            failures.append(exc)

    def watch_other() -> None:
        got.extend(e.version for e in events(fanout.listen(other, 1, stop)))

    threads = [threading.Thread(target=t, daemon=True) for t in (watch_broken, watch_other)]
    for thread in threads:
        thread.start()
    wait_for(lambda: len(fanout._hubs) == 2)
    writer.append(STREAM, [BoolValue(value=True)], 0, "k-new")
    writer.append(other, [poker_pb2.TimedOut(seat=0)], 0, "k1")
    threads[0].join(timeout=5)
    assert failures and "BoolValue" in str(failures[0])
    writer.append(other, [poker_pb2.TimedOut(seat=1)], 1, "k2")
    wait_for(lambda: got == [1, 2])
    assert list(fanout._followers) == [""]  # the follower itself goes on
    stop.set()


def test_a_watcher_behind_in_the_window_catches_up_in_batches_of_at_most_max_batch() -> None:
    store = InMemoryEventStore(codec.registry())
    append(store, 1, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    listener = fanout.listen(STREAM, 1, stop)
    assert [e.version for e in next(listener)] == [1]  # from the store: the hub starts after it
    count = MAX_BATCH + 10
    messages = [poker_pb2.TimedOut(seat=i % 6) for i in range(count)]
    fanout.publish(STREAM, 2, messages, messages, 1234)  # the window now holds all of them
    assert len(next(listener)) == MAX_BATCH
    assert len(next(listener)) == 10
    listener.close()
    stop.set()
