"""The swept index written from an event loop: every table's newest deadlines, coalesced.

A real-time table re-states its open deadlines in the swept index (deadline_index.py,
`SWEPT_KEY`) at every change of its state: with Spit's fast players that is a Redis round
trip per card played, made from a worker thread because the scheduler's client blocks. On
the asyncio runtime the table hands them to a `SweptWriter` instead (`submit`, from the loop
or from any thread): it keeps only each table's newest deadlines and one task writes every
table that changed since its last write in ONE script call (all of them share the index's
hash tag, so one Redis Cluster slot), then the ones that changed meanwhile. Under load many
plays of many tables cost one round trip, and no move waits for it.

The index is a hint, never the authority (the deadline is in the table's events and the
table refuses a trigger that is not due), so what this changes is only when a deadline
reaches the index: a moment after its append instead of just after it. A table whose write
is lost with a killed process is the recovery sweep's, as before (its triggers are sent
again). Writes of one table are never reordered: one writer, the newest state wins.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence

import structlog

from services.scheduling.deadline_index import SWEPT_KEY
from services.scheduling.deadlines import Deadline
from services.shared.redis_connection import AsyncClient

log = structlog.get_logger(__name__)

# Tables written per script call at most (a bound on one call's time inside Redis).
MAX_TABLES_PER_WRITE = 256
RETRY_AFTER_S = 0.2

# KEYS[1]: the index; KEYS[1 + t]: table t's set of open members. ARGV, per table in KEYS
# order: its number of deadlines n, then n (member, due time) pairs. Each table's set becomes
# exactly its pairs (the table's other members leave the index), as `_REPLACE` does for one.
_REPLACE_TABLES = """
local a = 1
for t = 2, #KEYS do
  local n = tonumber(ARGV[a])
  a = a + 1
  local keep = {}
  for i = a, a + 2 * n - 1, 2 do keep[ARGV[i]] = true end
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[t])) do
    if not keep[member] then
      redis.call('ZREM', KEYS[1], member)
      redis.call('SREM', KEYS[t], member)
    end
  end
  for i = a, a + 2 * n - 1, 2 do
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    redis.call('SADD', KEYS[t], ARGV[i])
  end
  a = a + 2 * n
end
return #KEYS - 1
"""


class SweptWriter:
    """Writes each table's newest real-time deadlines into the swept index from the loop."""

    def __init__(self, client: AsyncClient, key: str = SWEPT_KEY) -> None:
        self._client = client
        self._key = key
        self._script = client.register_script(_REPLACE_TABLES)
        self._guard = threading.Lock()
        self._pending: dict[str, Sequence[Deadline]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.writes = 0  # script calls made (tests, benchmarks)

    def start(self) -> SweptWriter:
        """(on the loop that will run the writes)"""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._task = asyncio.create_task(self._run(), name="swept-writer")
        return self

    def submit(self, table_id: str, deadlines: Sequence[Deadline]) -> bool:
        """The table's open real-time deadlines are now exactly `deadlines` (from any
        thread): written soon, replacing whatever the table submitted before. False when
        the writer is not running (not started, closing or its loop gone): nothing was
        taken, the caller writes them itself."""
        loop = self._loop
        task = self._task
        if loop is None or task is None or task.done() or self._closing or loop.is_closed():
            return False
        with self._guard:
            self._pending[table_id] = tuple(deadlines)
        if threading.get_ident() == self._loop_thread:
            self._wake.set()
        else:
            loop.call_soon_threadsafe(self._wake.set)
        return True

    @property
    def pending(self) -> int:
        with self._guard:
            return len(self._pending)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while True:
                with self._guard:
                    if not self._pending:
                        break
                    batch = dict(list(self._pending.items())[:MAX_TABLES_PER_WRITE])
                    for table_id in batch:
                        del self._pending[table_id]
                try:
                    await self._write(batch)
                except asyncio.CancelledError:
                    self._put_back(batch)
                    raise
                except Exception as exc:  # Redis away: keep the newest, try again soon
                    self._put_back(batch)
                    log.warning(
                        "could not write the swept deadlines; trying again",
                        tables=len(batch),
                        error=repr(exc)[:200],
                    )
                    if self._closing:
                        return
                    await asyncio.sleep(RETRY_AFTER_S)
            if self._closing:
                return

    def _put_back(self, batch: dict[str, Sequence[Deadline]]) -> None:
        with self._guard:
            for table_id, deadlines in batch.items():
                self._pending.setdefault(table_id, deadlines)  # (a newer one wins)

    async def _write(self, batch: dict[str, Sequence[Deadline]]) -> None:
        keys = [self._key]
        args: list[str] = []
        for table_id, deadlines in batch.items():
            keys.append(f"{self._key}:table:{table_id}")
            by_member = {d.member(): d for d in deadlines}
            args.append(str(len(by_member)))
            for member, deadline in by_member.items():
                args += [member, repr(deadline.due_at)]
        await self._script(keys=keys, args=args)
        self.writes += 1

    async def close(self, timeout: float = 2.0) -> None:
        """Write what is pending (within `timeout`), then stop."""
        task = self._task
        if task is None:
            return
        self._closing = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
