"""The table's moves on the event loop: one writer per table, the shared command path awaited.

An Act (unary, or one request of a Play stream) never takes a thread: the command path
(commands.py) and the process steps (steps.py) are the same scripts the thread-pool runtime
runs, and `AioEffects` performs their effects with awaited adapters: `AsyncRedisEventStore`
for reads and the ONE guarded append, `AioGrpcDealer` / `AioGrpcLedger` for the steps.

One writer per table: each command runs as a task holding its table's asyncio lock, so the
commands of one table are applied in arrival order and different tables' run concurrently.
The task answers the caller as soon as the command's append is recorded, then, still holding
the lock, sends the new decisions' triggers and takes the process steps that follow (the next
street, a settlement) before the next command of that table is decided. Those steps are off
the caller's critical path but never lost: they follow from events already appended, the
table was marked in the attention set before the append, and whoever loads the table next
(this instance's retrier, another instance, the recovery sweep) takes the same steps with the
same keys. A caller that goes away cancels only its wait: the task finishes the command. The
table's other commands, run on the thread pool, hold the same lock while they run
(`exclusive`), so none lands between a move and its steps.

Expected versions and idempotency keys arbitrate as on the thread-pool runtime: the commands
this process still runs in threads outside the lock (the retrier, the recovery sweep), other
instances and retries are other writers whose appends the version guard orders. The few
blocking calls left run in a worker thread, off the loop: a table's first load in this
process (the loader with its snapshot, tables.py), a new attention mark (at most one per
table per half recovery grace) and the scheduler's triggers (Celery's client blocks; none
without workers; a real-time table's swept deadlines go to the loop's SweptWriter instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import structlog

from services.games import contract as c
from services.games.ranking import HandRanker
from services.ranking.ports import LibraryRanker
from services.shared import errors
from services.shared.eventstore.aio_interface import AsyncEventStore
from services.table import process
from services.table.aio_adapters import AsyncDealerPort, AsyncLedgerPort
from services.table.application import Decider, TableApplication, act_decider, act_key
from services.table.decisions import may_trigger
from services.table.effects import (
    Append,
    Call,
    Confirm,
    Effect,
    Load,
    Mark,
    Rank,
    Schedule,
    Script,
    rank_all,
)
from services.table.folding import fold_recorded, table_stream
from services.table.ports import NoScheduler
from services.table.shell import Table
from services.table.tables import to_messages

T = TypeVar("T")
log = structlog.get_logger(__name__)


class AioEffects:
    """Performs the command path's effects on the event loop."""

    def __init__(
        self,
        app: TableApplication,
        store: AsyncEventStore,
        dealer: AsyncDealerPort,
        ledger: AsyncLedgerPort,
        *,
        swept_on_loop: bool = False,
    ) -> None:
        self.tables = app.tables
        self.decisions = app.decisions
        self.store = store
        self.ports: dict[str, Any] = {"dealer": dealer, "ledger": ledger}
        self.ranker: HandRanker = app.ranker
        # The in-process ranking library is CPU only; a remote ranker blocks (a thread).
        self._ranker_blocks = not isinstance(app.ranker, LibraryRanker)
        self._scheduler_blocks = not isinstance(app.scheduler, NoScheduler)
        # A real-time table's triggers are only its swept deadlines: with a SweptWriter they
        # are handed over on the loop (no thread, no wait); else they block like the rest.
        self._swept_on_loop = swept_on_loop

    async def run(self, script: Script[T], deferred: list[Schedule] | None = None) -> T:
        """Run `script` to its end, awaiting each effect; an effect's error is thrown into the
        script where it yielded it. With `deferred`, triggers are collected there instead of
        sent (the writer sends them after answering)."""
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = script.send(value) if error is None else script.throw(error)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            try:
                if deferred is not None and isinstance(effect, Schedule):
                    deferred.append(effect)
                    value, error = None, None
                else:
                    value, error = await self.perform(effect), None
            except Exception as exc:
                value, error = None, exc

    async def perform(self, effect: Effect) -> Any:
        if isinstance(effect, Load):
            return await self.load(effect.table_id, effect.fresh)
        if isinstance(effect, Call):
            result = getattr(self.ports[effect.port], effect.method)(*effect.args, **effect.kwargs)
            return await result if inspect.isawaitable(result) else result
        if isinstance(effect, Append):
            return await self.append(effect)
        if isinstance(effect, Rank):
            if self._ranker_blocks:
                return await asyncio.to_thread(rank_all, self.ranker, effect.requests)
            return rank_all(self.ranker, effect.requests)
        if isinstance(effect, Mark):
            if self.tables.mark_due(effect.table_id):
                await asyncio.to_thread(self.tables.mark, effect.table_id)
            return None
        if isinstance(effect, Confirm):
            await self.store.wait_for_replicas(table_stream(effect.table_id))
            return None
        await self.schedule(effect)
        return None

    async def schedule(self, effect: Schedule) -> None:
        if not may_trigger(effect.before, effect.after):
            return  # (no new decision: nothing to trigger)
        blocks = self._scheduler_blocks and not (self._swept_on_loop and effect.after.game.realtime)
        if blocks:
            await asyncio.to_thread(self.decisions.after_append, effect.before, effect.after)
        else:
            self.decisions.after_append(effect.before, effect.after)

    async def load(self, table_id: str, fresh: bool) -> Table:
        """The cached table, or (fresh) the cached table plus the events after it. A table
        not cached yet is loaded once by the thread-pool loader (snapshot + events)."""
        tables = self.tables
        cached = tables.cached(table_id)
        if cached is None:
            return await asyncio.to_thread(tables.load, table_id)
        if not fresh:
            return cached
        newer = await self.store.read(table_stream(table_id), cached.version + 1)
        if not newer:
            return cached
        await self.store.wait_for_replicas(table_stream(table_id))  # (Tables._read)
        table = fold_recorded(table_id, newer, cached, tables.catalog)
        tables.remember(table)
        return table

    async def append(self, effect: Append) -> Table | None:
        table, batch = effect.table, effect.batch
        messages = to_messages(table, batch)
        stream = table_stream(table.table_id)
        try:
            result = await self.store.append(stream, messages, table.version, effect.key)
        except errors.Conflict:
            return None  # someone wrote first: the command loads what they wrote and decides
        if result.deduplicated:
            # (a retry of an append already recorded: the table as the stream has it)
            return await self.load(table.table_id, fresh=True)
        return self.tables.appended(table, batch, messages, result.first_version, effect.folded)


class _Turn:
    """One table's writers' lock, and how many of them hold or await it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class AioCommands:
    """One writer per table on the event loop: commands of a table in order, each answered
    after its append, its triggers and process steps taken before the next."""

    def __init__(self, app: TableApplication, effects: AioEffects) -> None:
        self.app = app
        self.effects = effects
        self._turns: dict[str, _Turn] = {}
        self._writers: set[asyncio.Task[Any]] = set()  # (kept: the loop holds tasks weakly)

    @contextlib.asynccontextmanager
    async def _turn(self, table_id: str) -> AsyncIterator[None]:
        """The table's lock, held. Its entry lives while a writer holds or awaits it, so
        ids nobody writes any more (a closed table, views asked of ids that do not exist)
        leave nothing behind."""
        turn = self._turns.get(table_id)
        if turn is None:
            turn = self._turns[table_id] = _Turn()
        turn.users += 1
        try:
            async with turn.lock:
                yield
        finally:
            turn.users -= 1
            if not turn.users:
                del self._turns[table_id]

    async def exclusive(self, table_id: str, run: Callable[[], Awaitable[T]]) -> T:
        """`run()` as one of the table's writers: after the steps of the moves before it and
        before the next move. A command run on the thread pool (a join, a top-up, a timeout)
        is so never interleaved with a move's process steps: if it appended while a step was
        dealing, the step would be redone at the new version under a new key and the cards
        the dealer dealt first would be recorded nowhere. A caller that goes away cancels
        only its wait: the command keeps the table until it is done."""
        task = asyncio.create_task(self._holding(table_id, run))
        self._writers.add(task)
        task.add_done_callback(self._writers.discard)
        return await asyncio.shield(task)

    async def _holding(self, table_id: str, run: Callable[[], Awaitable[T]]) -> T:
        async with self._turn(table_id):
            return await run()

    async def act(
        self,
        table_id: str,
        player: str,
        command: Callable[[Table, int], c.Move],
        key: str,
        expected_version: int | None,
        seat: int | None = None,
    ) -> int:
        """`TableApplication.act` on the loop: the table's version after the move."""
        with self.app.receiving_act(table_id, player):
            _table, version = await self.execute(
                table_id,
                act_key(table_id, player, key),
                player,
                act_decider(table_id, player, command, seat),
                expected_version,
            )
        return version

    async def execute(
        self,
        table_id: str,
        key: str,
        by: str,
        decider: Decider,
        expected_version: int | None = None,
    ) -> tuple[Table, int]:
        """Run one command through the table's writer; (table, version) once appended."""
        answer: asyncio.Future[tuple[Table, int]] = asyncio.get_running_loop().create_future()
        # (a caller gone before its answer leaves it unread: mark it read)
        answer.add_done_callback(lambda f: f.cancelled() or f.exception())
        script = self.app.commands.executing(table_id, key, by, decider, expected_version)
        writer = asyncio.create_task(self._write(table_id, script, answer))
        self._writers.add(writer)
        writer.add_done_callback(self._writers.discard)
        return await asyncio.shield(answer)

    async def _write(
        self,
        table_id: str,
        script: Script[tuple[Table, int]],
        answer: asyncio.Future[tuple[Table, int]],
    ) -> None:
        async with self._turn(table_id):
            deferred: list[Schedule] = []
            try:
                table, version = await self.effects.run(script, deferred)
            except Exception as exc:
                answer.set_exception(exc)
                return
            answer.set_result((table, version))
            await self._follow_up(table_id, table, deferred)

    async def _follow_up(self, table_id: str, table: Table, deferred: list[Schedule]) -> None:
        """(lock held, the caller answered) The command's triggers, then its process steps.
        A failure never reaches the caller (the command is recorded): the table goes to the
        background retrier, as on the thread-pool runtime."""
        try:
            for trigger in deferred:
                await self.effects.schedule(trigger)
            await self.drive(table_id, table)
        except Exception as exc:
            if not isinstance(exc, errors.DomainError):
                log.warning(
                    "process steps after a command failed; retrying in the background",
                    table=table_id,
                    error=repr(exc)[:200],
                )
            self.app.retrier.after_failure(table_id, exc)

    async def drain(self, timeout: float) -> None:
        """(at stop, before the adapters close) Let the writers still running finish: a move
        answered just before a stop has its process steps (the next street, a settlement)
        taken here, not left to the next instance's recovery sweep."""
        if self._writers:
            await asyncio.wait(set(self._writers), timeout=timeout)

    async def drive(self, table_id: str, table: Table, max_steps: int = 200) -> Table:
        """`ProcessSteps.drive` on the loop (the table's lock held)."""
        steps = 0
        while steps < max_steps:
            if process.next_step(table) is None:
                return table
            table, taken = await self.effects.run(
                self.app.steps.performing(table, max_steps - steps)
            )
            steps += max(taken, 1)
        return table
