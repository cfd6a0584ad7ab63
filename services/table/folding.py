"""A table's state from its events: the game's and the shell's, folded side by side (pure).

`fold_one` applies one stored event: the game's events go to the engine's reducer, every
event (the envelope's protobuf messages too) to the shell's bookkeeping (shell.py).
`fold_recorded` rebuilds a table from its stream, which always starts with TableCreated.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from croupier.table.v1 import events_pb2
from services.games.poker.definitions import TableConfig
from services.games.poker.reducer import apply
from services.games.poker.state import new_table
from services.shared import errors
from services.shared.eventstore import RecordedEvent, stream_key
from services.table import codec
from services.table.shell import ShellState, Table, fold_shell

DIRECTORY_STREAM = stream_key("tables", "directory")


def table_stream(table_id: str) -> str:
    return stream_key("table", table_id)


def fold_one(table: Table, version: int, event: object, now: int = 0) -> Table:
    engine = table.engine
    if not isinstance(event, Message):
        engine = apply(engine, event)  # type: ignore[arg-type]
    shell = fold_shell(table.shell, version, event)
    return Table(table.table_id, version, engine, shell)  # (dataclasses.replace is slower)


def fold_events(table: Table, events: Sequence[object], first_version: int) -> Table:
    """`table` after `events`, the first at `first_version` (the rest follow one by one)."""
    for offset, event in enumerate(events):
        table = fold_one(table, first_version + offset, event)
    return table


def fold_recorded(
    table_id: str, recorded: Sequence[RecordedEvent], table: Table | None = None
) -> Table:
    """Fold stored events into a table (from scratch when `table` is None)."""
    for record in recorded:
        event = codec.from_message(record.message)
        if table is None:
            if not isinstance(event, events_pb2.TableCreated):
                raise errors.FailedPrecondition(f"table {table_id}: stream does not start right")
            table = Table(table_id, 0, new_table(_placeholder_config()), ShellState())
        table = fold_one(table, record.version, event)
    assert table is not None
    return table


def _placeholder_config() -> TableConfig:
    from services.games.poker.catalog import TEXAS_HOLDEM

    return TableConfig(game=TEXAS_HOLDEM, seats=2)
