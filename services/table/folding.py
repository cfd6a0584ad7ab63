"""A table's state from its events: the game's and the shell's, folded side by side (pure).

`fold_one` applies one stored event: the game's events go to its rules' `apply`, every event
(the envelope's protobuf messages too) to the shell's bookkeeping (shell.py).
`fold_recorded` rebuilds a table from its stream, which always starts with TableCreated:
its `game` names the catalog entry, its `options` the game's starting state.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.shared import errors
from services.shared.eventstore import RecordedEvent, stream_key
from services.table.games.catalog import CATALOG, Catalog
from services.table.shell import ShellState, Table, fold_game_event, fold_message

DIRECTORY_STREAM = stream_key("tables", "directory")


def table_stream(table_id: str) -> str:
    return stream_key("table", table_id)


def fold_one(table: Table, version: int, event: object) -> Table:
    if isinstance(event, Message):
        shell = fold_message(table.shell, version, event)
        return Table(table.table_id, version, table.game, table.state, shell)
    game = table.game
    state = game.rules.apply(table.state, event)
    shell = fold_game_event(table.shell, version, event, game)
    return Table(table.table_id, version, game, state, shell)  # (replace is slower)


def fold_events(table: Table, events: Sequence[object], first_version: int) -> Table:
    """`table` after `events`, the first at `first_version` (the rest follow one by one)."""
    for offset, event in enumerate(events):
        table = fold_one(table, first_version + offset, event)
    return table


def fold_recorded(
    table_id: str,
    recorded: Sequence[RecordedEvent],
    table: Table | None = None,
    catalog: Catalog = CATALOG,
) -> Table:
    """Fold stored events into a table (from scratch when `table` is None)."""
    for record in recorded:
        message = record.message
        if table is None:
            if not isinstance(message, events_pb2.TableCreated):
                raise errors.FailedPrecondition(f"table {table_id}: stream does not start right")
            table = new_table(table_id, message, catalog)
        event = table.game.events.from_message(message)
        table = fold_one(table, record.version, message if event is None else event)
    assert table is not None
    return table


def new_table(table_id: str, created: events_pb2.TableCreated, catalog: Catalog) -> Table:
    """The table before its first event: its game's starting state from the options."""
    game = catalog.named(created.game)
    options = table_pb2.TableOptions.FromString(created.options)
    return Table(table_id, 0, game, game.initial_state(options), ShellState())
