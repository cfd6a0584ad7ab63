"""Watchers of one table share one subscription and each get every event, in order."""

from __future__ import annotations

import threading

from croupier.table.v1 import events_pb2
from services.shared.eventstore import InMemoryEventStore
from services.table import codec
from services.table.fanout import TableFanout

STREAM = "{table:t1}:events"


def append(store, n, start):
    for i in range(n):
        store.append(STREAM, [events_pb2.TimedOut(seat=i % 6)], start + i, f"k{start + i}")


def test_every_watcher_gets_every_event_from_its_own_start_version():
    store = InMemoryEventStore(codec.registry())
    append(store, 5, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    seen: dict[int, list[int]] = {1: [], 4: [], 9: []}

    def watch(start):
        for record in fanout.listen(STREAM, start, stop):
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


def test_a_hub_stops_when_its_last_watcher_leaves():
    store = InMemoryEventStore(codec.registry())
    append(store, 2, 0)
    fanout = TableFanout(store, block_ms=20)
    stop = threading.Event()
    listener = fanout.listen(STREAM, 1, stop)
    assert next(listener).version == 1
    hub = fanout._hubs[STREAM]
    listener.close()
    assert hub.stop.is_set()
    assert STREAM not in fanout._hubs
