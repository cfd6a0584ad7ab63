"""The table writers' turns on the event loop (aio_commands.AioCommands.exclusive): one
table's writers run one at a time in arrival order, different tables' at once, and a table's
turn is forgotten once nobody holds or awaits it."""

from __future__ import annotations

import asyncio
import functools
from typing import Any, cast

import pytest

from services.table.aio_commands import AioCommands


def writers() -> AioCommands:
    # (exclusive needs neither the application nor the effects)
    return AioCommands(cast(Any, None), cast(Any, None))


def test_one_table_s_writers_take_turns_in_order_and_leave_no_turn_behind() -> None:
    commands = writers()
    log: list[str] = []

    async def writer(name: str) -> str:
        log.append(f"{name} starts")
        await asyncio.sleep(0.01)
        log.append(f"{name} ends")
        return name

    async def scenario() -> list[str]:
        runs = [commands.exclusive("t1", functools.partial(writer, n)) for n in ("a", "b", "c")]
        done = await asyncio.gather(*runs)
        assert commands._turns == {}
        return done

    assert asyncio.run(scenario()) == ["a", "b", "c"]
    assert log == ["a starts", "a ends", "b starts", "b ends", "c starts", "c ends"]


def test_different_tables_writers_run_at_once() -> None:
    commands = writers()

    async def scenario() -> None:
        started: list[str] = []
        gate = asyncio.Event()

        async def writer(table: str) -> None:
            started.append(table)
            if len(started) == 2:
                gate.set()
            await asyncio.wait_for(gate.wait(), 10)  # only if the other table's writer runs too

        await asyncio.gather(
            commands.exclusive("t1", lambda: writer("t1")),
            commands.exclusive("t2", lambda: writer("t2")),
        )
        assert sorted(started) == ["t1", "t2"] and commands._turns == {}

    asyncio.run(scenario())


def test_views_of_ids_that_do_not_exist_leave_no_turn_behind() -> None:
    """A failing writer (a read of an unknown table answers NotFound) frees its turn too: a
    stream of bad ids does not grow the process's memory."""
    commands = writers()

    async def missing() -> None:
        raise LookupError("no such table")

    async def scenario() -> None:
        for n in range(100):
            with pytest.raises(LookupError):
                await commands.exclusive(f"nosuch-{n}", missing)
        assert commands._turns == {}

    asyncio.run(scenario())
