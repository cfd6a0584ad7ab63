"""The attention set: which tables some instance wrote lately, so none is forgotten if it fails.

A command's append and the steps that follow it (dealing, paying, scheduling the next
timeout or bot turn) are separate writes: an instance that dies, or whose dealer, ledger or
broker fails, between them leaves a table that waits for nobody. Before an instance appends
to a table it marks the table here (a Redis sorted set, member = table id, score = when,
in ms), at most once per `refresh_ms` per table. The recovery sweep (`recovery.py`) of
every instance looks only at marks older than its grace (nobody has marked the table since,
so nobody is working on it) and finishes what the table needs; a table nobody wrote to for
a while is not in the set, so idle tables cost nothing.

The set is a hint, never the authority: a table's own events say what it needs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar, cast

from services.shared.errors import Unavailable
from services.shared.redis_connection import STORAGE_DOWN, SyncClient, storage_down_reason

DEFAULT_KEY = "croupier:table:attention"
_T = TypeVar("_T")

# Take a due mark for one sweep: move it to `now` (out of the due range for a grace period)
# only while it is still the mark the sweep read, so two instances never sweep one table at
# once and a newer mark is never taken over.
_CLAIM = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""
# Remove a mark only while it is the one the sweep took (no instance marked it since).
_CLEAR = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


class AttentionSet(Protocol):
    def mark(self, table_id: str, at_ms: int) -> None:
        """`table_id` is being written at `at_ms` (a newer mark replaces an older one)."""
        ...

    def due(self, before_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to `limit` (table id, mark) pairs marked at or before `before_ms`, oldest first."""
        ...

    def claim(self, table_id: str, mark_ms: int, now_ms: int) -> bool:
        """Take the table for one sweep if its mark is still `mark_ms` (it becomes `now_ms`)."""
        ...

    def clear(self, table_id: str, mark_ms: int) -> bool:
        """Remove the table if its mark is still `mark_ms`; whether it was removed."""
        ...


def _storage(call: Callable[[], _T]) -> _T:
    try:
        return call()
    except STORAGE_DOWN as exc:
        raise Unavailable(
            f"table storage unreachable ({storage_down_reason(exc)}): retry shortly; a command "
            "retried with the same idempotency key is applied at most once"
        ) from exc


class RedisAttentionSet:
    def __init__(self, client: SyncClient, key: str = DEFAULT_KEY) -> None:
        self._redis = client
        self._key = key
        self._claim = client.register_script(_CLAIM)
        self._clear = client.register_script(_CLEAR)

    def mark(self, table_id: str, at_ms: int) -> None:
        _storage(lambda: self._redis.zadd(self._key, {table_id: at_ms}))

    def due(self, before_ms: int, limit: int) -> list[tuple[str, int]]:
        raw = _storage(
            lambda: self._redis.zrangebyscore(
                self._key, "-inf", before_ms, start=0, num=limit, withscores=True
            )
        )
        pairs = cast(list[tuple[bytes, float]], raw)
        return [(member.decode(), int(score)) for member, score in pairs]

    def claim(self, table_id: str, mark_ms: int, now_ms: int) -> bool:
        args: list[str | int] = [table_id, mark_ms, now_ms]
        return bool(_storage(lambda: self._claim(keys=[self._key], args=args)))

    def clear(self, table_id: str, mark_ms: int) -> bool:
        return bool(_storage(lambda: self._clear(keys=[self._key], args=[table_id, mark_ms])))


class InMemoryAttentionSet:
    """The same contract in a dict (unit tests, benchmarks, the in-memory event store)."""

    def __init__(self) -> None:
        self._marks: dict[str, int] = {}
        self._lock = threading.Lock()

    def mark(self, table_id: str, at_ms: int) -> None:
        with self._lock:
            self._marks[table_id] = at_ms

    def due(self, before_ms: int, limit: int) -> list[tuple[str, int]]:
        with self._lock:
            ready = sorted((m, t) for t, m in self._marks.items() if m <= before_ms)
        return [(t, m) for m, t in ready[:limit]]

    def claim(self, table_id: str, mark_ms: int, now_ms: int) -> bool:
        with self._lock:
            if self._marks.get(table_id) != mark_ms:
                return False
            self._marks[table_id] = now_ms
            return True

    def clear(self, table_id: str, mark_ms: int) -> bool:
        with self._lock:
            if self._marks.get(table_id) != mark_ms:
                return False
            del self._marks[table_id]
            return True

    def marked(self) -> dict[str, int]:
        with self._lock:
            return dict(self._marks)
