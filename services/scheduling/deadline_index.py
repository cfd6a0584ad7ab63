"""The deadline index in Redis: one sorted set scored by due time.

The scheduler adds a deadline when it arms a Celery task and the table removes it (through the
scheduler) when the decision is made, so the sweeper only has to look at the head of the set to
find triggers that were lost with a killed worker. The index is a hint, never the authority:
losing it only costs the sweeper a rebuild from the event store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import redis

from services.scheduling.deadlines import Deadline


class DeadlineIndex(Protocol):
    """A durable list of deadlines not yet known to be resolved, ordered by due time."""

    def add(self, deadline: Deadline) -> None: ...

    def arm(self, deadline: Deadline) -> None:
        """Add `deadline` and drop its table's previous decision (a table waits for one)."""
        ...

    def discard(self, deadline: Deadline) -> None:
        """Forget the decision, whatever its due time (the table resolved it)."""
        ...

    def resolve(self, deadline: Deadline) -> None:
        """Forget the decision only if it is still due at `deadline.due_at` (not extended)."""
        ...

    def contains(self, deadline: Deadline) -> bool: ...

    def due_at_of(self, deadline: Deadline) -> float | None:
        """The current due time of `deadline`'s decision (a time bank may have moved it)."""
        ...

    def due(self, now: float, limit: int) -> Sequence[Deadline]: ...


DEFAULT_KEY = "croupier:workers:deadlines"
# Remove a member only while its score is still the due time the caller fired for.
_RESOLVE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


# A table waits for one decision at a time: arming a new one resolves the table's previous one.
_ARM = """
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous and previous ~= ARGV[2] then
  redis.call('ZREM', KEYS[1], previous)
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
"""


class RedisDeadlineIndex:
    def __init__(self, client: redis.Redis, key: str = DEFAULT_KEY) -> None:
        self._redis = client
        self._key = key
        self._current_key = f"{key}:current"
        self._resolve = client.register_script(_RESOLVE)
        self._arm = client.register_script(_ARM)

    def arm(self, deadline: Deadline) -> None:
        """Add `deadline` as its table's only open decision (the previous one was made)."""
        self._arm(
            keys=[self._key, self._current_key],
            args=[deadline.table_id, deadline.member(), repr(deadline.due_at)],
        )

    def add(self, deadline: Deadline) -> None:
        self._redis.zadd(self._key, {deadline.member(): deadline.due_at})

    def discard(self, deadline: Deadline) -> None:
        self._redis.zrem(self._key, deadline.member())

    def resolve(self, deadline: Deadline) -> None:
        self._resolve(keys=[self._key], args=[deadline.member(), repr(deadline.due_at)])

    def contains(self, deadline: Deadline) -> bool:
        return self.due_at_of(deadline) is not None

    def due_at_of(self, deadline: Deadline) -> float | None:
        score = self._redis.zscore(self._key, deadline.member())
        return None if score is None else float(score)

    def due(self, now: float, limit: int) -> Sequence[Deadline]:
        raw = self._redis.zrangebyscore(self._key, "-inf", now, start=0, num=limit, withscores=True)
        pairs: list[tuple[bytes, float]] = list(raw)  # type: ignore[arg-type]
        return [Deadline.from_member(member, float(score)) for member, score in pairs]

    def size(self) -> int:
        return int(self._redis.zcard(self._key))


class InMemoryDeadlineIndex:
    """The same contract in a dict, for unit tests and the engine-only simulator."""

    def __init__(self) -> None:
        self._items: dict[str, Deadline] = {}
        self._current: dict[str, str] = {}

    def arm(self, deadline: Deadline) -> None:
        previous = self._current.get(deadline.table_id)
        if previous is not None and previous != deadline.member():
            self._items.pop(previous, None)
        self._current[deadline.table_id] = deadline.member()
        self.add(deadline)

    def add(self, deadline: Deadline) -> None:
        self._items[deadline.member()] = deadline

    def discard(self, deadline: Deadline) -> None:
        self._items.pop(deadline.member(), None)

    def resolve(self, deadline: Deadline) -> None:
        if self.due_at_of(deadline) == deadline.due_at:
            self.discard(deadline)

    def contains(self, deadline: Deadline) -> bool:
        return deadline.member() in self._items

    def due_at_of(self, deadline: Deadline) -> float | None:
        found = self._items.get(deadline.member())
        return None if found is None else found.due_at

    def due(self, now: float, limit: int) -> Sequence[Deadline]:
        ready = sorted((d for d in self._items.values() if d.due_at <= now), key=lambda d: d.due_at)
        return ready[:limit]

    def size(self) -> int:
        return len(self._items)
