"""The deadline index in Redis: one sorted set scored by due time, keyed by decision.

A member is one decision: the table and its deadline id ("<round>/<n>"), so a table may have
any number open at once (heads-up high card: one per seat; Spit: ready, slap and stall). The
scheduler writes a table's open timed decisions into the index before it sends their triggers
(`replace_table`: the table's set becomes exactly those; one the game closed or renamed is
dropped), and a fired one leaves it (`resolve`), so the sweeper only has to look at the head
of the set to find triggers that were lost with a killed worker. The index is a hint, never
the authority: losing it only costs the sweeper a rebuild from a scan of the tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from services.scheduling.deadlines import Deadline
from services.shared.redis_connection import SyncClient


class DeadlineIndex(Protocol):
    """A durable list of deadlines not yet known to be resolved, ordered by due time."""

    def add(self, deadline: Deadline) -> None: ...

    def arm(self, deadline: Deadline) -> None:
        """Add (or move) `deadline` among its table's open decisions; the others stay."""
        ...

    def replace_table(self, table_id: str, deadlines: Sequence[Deadline]) -> list[Deadline]:
        """Make `deadlines` the table's open decisions: the table's others leave the index.
        Returns those that were not in it at their due time (new or moved): their triggers
        have to be sent; the unchanged ones' are on their way."""
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


# Each index is one hash tag (`{...}`): its sorted set and its per-table sets
# (`<key>:table:<id>`) sit in one Redis Cluster slot, so one script may touch them together.
DEFAULT_KEY = "{croupier:workers:deadlines}"
# Real-time games' deadlines (Spit's ready, slap and stall: renamed with every card played):
# no task is sent for them; the workers' deadline sweeper polls this set's head every few
# tens of milliseconds (services/workers/swept_deadlines.py).
SWEPT_KEY = "{croupier:workers:swept-deadlines}"
# Remove a member only while its score is still the due time the caller fired for (KEYS[2]:
# its table's set of open members).
_RESOLVE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('SREM', KEYS[2], ARGV[1])
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

_ARM = """
redis.call('SADD', KEYS[2], ARGV[1])
return redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
"""

# The table's open decisions become ARGV (member, due time pairs): the table's other members
# leave the index; returns the members added or moved (their triggers must be sent).
_REPLACE = """
local keep = {}
for i = 1, #ARGV, 2 do keep[ARGV[i]] = true end
for _, member in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if not keep[member] then
    redis.call('ZREM', KEYS[1], member)
    redis.call('SREM', KEYS[2], member)
  end
end
local changed = {}
for i = 1, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if (not score) or tonumber(score) ~= tonumber(ARGV[i + 1]) then
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    changed[#changed + 1] = ARGV[i]
  end
  redis.call('SADD', KEYS[2], ARGV[i])
end
return changed
"""


class RedisDeadlineIndex:
    def __init__(self, client: SyncClient, key: str = DEFAULT_KEY) -> None:
        self._redis = client
        self._key = key
        self._resolve = client.register_script(_RESOLVE)
        self._arm = client.register_script(_ARM)
        self._replace = client.register_script(_REPLACE)

    def _table_key(self, table_id: str) -> str:
        return f"{self._key}:table:{table_id}"

    def arm(self, deadline: Deadline) -> None:
        self._arm(
            keys=[self._key, self._table_key(deadline.table_id)],
            args=[deadline.member(), repr(deadline.due_at)],
        )

    def replace_table(self, table_id: str, deadlines: Sequence[Deadline]) -> list[Deadline]:
        by_member = {d.member(): d for d in deadlines}
        args: list[str] = []
        for member, deadline in by_member.items():
            args += [member, repr(deadline.due_at)]
        changed = self._replace(keys=[self._key, self._table_key(table_id)], args=args)
        return [by_member[m.decode() if isinstance(m, bytes) else str(m)] for m in changed]

    def add(self, deadline: Deadline) -> None:
        self.arm(deadline)

    def discard(self, deadline: Deadline) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.zrem(self._key, deadline.member())
        pipe.srem(self._table_key(deadline.table_id), deadline.member())
        pipe.execute()

    def resolve(self, deadline: Deadline) -> None:
        self._resolve(
            keys=[self._key, self._table_key(deadline.table_id)],
            args=[deadline.member(), repr(deadline.due_at)],
        )

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

    def arm(self, deadline: Deadline) -> None:
        self.add(deadline)

    def replace_table(self, table_id: str, deadlines: Sequence[Deadline]) -> list[Deadline]:
        keep = {d.member() for d in deadlines}
        for member in [m for m, d in self._items.items() if d.table_id == table_id]:
            if member not in keep:
                del self._items[member]
        changed = [d for d in deadlines if self.due_at_of(d) != d.due_at]
        for deadline in changed:
            self.add(deadline)
        return changed

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
