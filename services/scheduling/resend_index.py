"""Triggers to send again unless someone resolves them first: bot turns and bot seatings.

A Celery task can be lost like the deadlines' (a worker killed while it holds an ETA task,
which Redis hands back only after the visibility timeout, an hour). So the scheduler writes
each bot turn and each bot seating here before sending its task, scored by when it is
overdue (`arm`/`add`); the task resolves its entry once the turn is played (or moot) or the
bot sits; the sweeper re-sends the entries that are overdue and moves them a resend period
on (`postpone`). Only entries that can be due are ever read: a table that waits for nobody
has none. Like the deadline index it is a hint, never the authority: the task re-checks the
table, and a duplicate changes nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol, cast

from services.shared.redis_connection import SyncClient

# One hash tag each: the sorted set and its `<key>:current` hash share a Redis Cluster slot.
BOT_TURNS_KEY = "{croupier:workers:bot-turns}"
SEAT_BOTS_KEY = "{croupier:workers:seat-bots}"

# A group has one open member at a time (a table waits for one bot turn): arming a new one
# removes the group's previous member.
_ARM = """
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous and previous ~= ARGV[2] then
  redis.call('ZREM', KEYS[1], previous)
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
"""


class ResendIndex(Protocol):
    def arm(self, group: str, member: str, at: float) -> None:
        """Add `member` as `group`'s only open entry, overdue at `at` (Unix seconds)."""
        ...

    def add(self, member: str, at: float) -> None:
        """Add `member` (or move it to `at`), whatever else is open."""
        ...

    def resolve(self, member: str) -> None:
        """Done: never send it again."""
        ...

    def postpone(self, member: str, at: float) -> None:
        """Move an open entry to `at`; nothing if it was resolved meanwhile."""
        ...

    def due(self, now: float, limit: int) -> Sequence[tuple[str, float]]:
        """Up to `limit` open entries overdue at `now`, the most overdue first."""
        ...

    def contains(self, member: str) -> bool: ...


class RedisResendIndex:
    """A sorted set of members scored by when they are overdue, plus one hash that names
    each group's open member (for `arm`)."""

    def __init__(self, client: SyncClient, key: str) -> None:
        self._redis = client
        self._key = key
        self._groups = f"{key}:current"
        self._arm = client.register_script(_ARM)

    def arm(self, group: str, member: str, at: float) -> None:
        self._arm(keys=[self._key, self._groups], args=[group, member, repr(at)])

    def add(self, member: str, at: float) -> None:
        self._redis.zadd(self._key, {member: at})

    def resolve(self, member: str) -> None:
        self._redis.zrem(self._key, member)

    def postpone(self, member: str, at: float) -> None:
        self._redis.zadd(self._key, {member: at}, xx=True)

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        raw = self._redis.zrangebyscore(self._key, "-inf", now, start=0, num=limit, withscores=True)
        pairs = cast(list[tuple[bytes, float]], raw)
        return [(member.decode(), float(score)) for member, score in pairs]

    def contains(self, member: str) -> bool:
        return self._redis.zscore(self._key, member) is not None

    def size(self) -> int:
        return int(self._redis.zcard(self._key))


class InMemoryResendIndex:
    """The same contract in dicts, for unit tests."""

    def __init__(self) -> None:
        self._items: dict[str, float] = {}
        self._groups: dict[str, str] = {}
        self._lock = threading.Lock()

    def arm(self, group: str, member: str, at: float) -> None:
        with self._lock:
            previous = self._groups.get(group)
            if previous is not None and previous != member:
                self._items.pop(previous, None)
            self._groups[group] = member
            self._items[member] = at

    def add(self, member: str, at: float) -> None:
        with self._lock:
            self._items[member] = at

    def resolve(self, member: str) -> None:
        with self._lock:
            self._items.pop(member, None)

    def postpone(self, member: str, at: float) -> None:
        with self._lock:
            if member in self._items:
                self._items[member] = at

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        with self._lock:
            ready = sorted((at, m) for m, at in self._items.items() if at <= now)
        return [(m, at) for at, m in ready[:limit]]

    def contains(self, member: str) -> bool:
        with self._lock:
            return member in self._items

    def size(self) -> int:
        with self._lock:
            return len(self._items)
