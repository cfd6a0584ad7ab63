"""Model check: random command sequences give the same results on Redis and in memory.

The contract suite states each rule once; this drives both stores through the same random mix
of right and stale expected versions, reused idempotency keys, batches of several events and
unencodable batches, and requires identical answers and identical streams.
"""

from __future__ import annotations

import uuid

import redis
from google.protobuf.message import Message
from google.protobuf.wrappers_pb2 import BoolValue, StringValue
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.shared.errors import Conflict
from services.shared.eventstore import (
    EventRegistry,
    EventStore,
    InMemoryEventStore,
    RedisEventStore,
    UnknownEventType,
    stream_key,
)

# (expected version minus the current one, idempotency key number, batch size)
commands = st.lists(
    st.tuples(
        st.sampled_from([0, 0, 0, -1, 1]),
        st.integers(min_value=0, max_value=5),
        st.integers(min_value=1, max_value=3),
    ),
    min_size=1,
    max_size=25,
)


def registry() -> EventRegistry:
    r = EventRegistry()
    r.register(StringValue)
    return r


def outcome(
    store: EventStore, stream: str, command: tuple[int, int, int, bool], step: int
) -> tuple[str, object]:
    offset, key, size, poison = command
    events: list[Message] = [StringValue(value=f"s{step}-{i}") for i in range(size)]
    if poison:
        events.insert(1, BoolValue(value=True))
    try:
        result = store.append(stream, events, max(0, store.version(stream) + offset), f"k{key}")
    except Conflict as conflict:
        return ("conflict", conflict.actual_version)
    except UnknownEventType as unknown:
        return ("unknown", unknown.type_name)
    return ("ok", result)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    commands=commands,
    poisoned=st.sets(st.integers(min_value=0, max_value=24), max_size=3),
)
def test_redis_and_memory_stores_answer_every_command_alike(
    redis_client: redis.Redis, commands: list[tuple[int, int, int]], poisoned: set[int]
) -> None:
    stream = stream_key("model", uuid.uuid4().hex)
    stores: list[EventStore] = [
        RedisEventStore(redis_client, registry(), durability="everysec"),
        InMemoryEventStore(registry()),
    ]
    for step, (offset, key, size) in enumerate(commands):
        command = (offset, key, size, step in poisoned)  # poisoned: carries an unregistered type
        answers = [outcome(store, stream, command, step) for store in stores]
        assert answers[0] == answers[1], f"step {step}: {command}"
    redis_events, memory_events = (store.read(stream) for store in stores)
    assert [(e.version, e.message) for e in redis_events] == [
        (e.version, e.message) for e in memory_events
    ]
    assert [e.version for e in redis_events] == list(range(1, len(redis_events) + 1))
