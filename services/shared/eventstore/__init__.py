"""Event store: append-only, versioned, idempotent protobuf event streams (see docs/eventstore.md).

registry = EventRegistry(); registry.register(table_pb2.HandStarted)
store = RedisEventStore(redis.Redis.from_url(url), registry)
store.append(stream_key("table", "42"), [event], expected_version=0, idempotency_key="...")
"""

from services.shared.eventstore.aio_interface import AsyncEventStore
from services.shared.eventstore.aio_redis_store import AsyncRedisEventStore
from services.shared.eventstore.durability import Durability, durability_from_env
from services.shared.eventstore.interface import (
    ANY_VERSION,
    DEFAULT_IDEMPOTENCY_TTL_S,
    READ_NEW_PAGE,
    AppendResult,
    EventStore,
    RecordedEvent,
)
from services.shared.eventstore.keys import stream_key
from services.shared.eventstore.memory_store import InMemoryEventStore
from services.shared.eventstore.redis_store import RedisEventStore
from services.shared.eventstore.registry import (
    EventDecodingError,
    EventRegistry,
    UnknownEventType,
    Upcaster,
)

__all__ = [
    "ANY_VERSION",
    "DEFAULT_IDEMPOTENCY_TTL_S",
    "READ_NEW_PAGE",
    "AppendResult",
    "AsyncEventStore",
    "AsyncRedisEventStore",
    "Durability",
    "EventDecodingError",
    "EventRegistry",
    "EventStore",
    "InMemoryEventStore",
    "RecordedEvent",
    "RedisEventStore",
    "UnknownEventType",
    "Upcaster",
    "durability_from_env",
    "stream_key",
]
