"""A closing table as the CLI and the terminal UI say it."""

from __future__ import annotations

from croupier.table.v1 import events_pb2, table_pb2
from services.client.render import event_line, status_name


def test_the_closing_event_says_who_closed_and_what_happens_next() -> None:
    event = events_pb2.TableEvent(
        table_id="t1", version=42, table_closing=events_pb2.TableClosing(closed_by="alice")
    )
    line = event_line(event)
    assert line.startswith("v42") and "alice closes the table" in line
    assert "back to its player's account" in line


def test_statuses_read_as_words() -> None:
    assert status_name(table_pb2.TABLE_STATUS_UNSPECIFIED) == "open"
    assert status_name(table_pb2.TABLE_STATUS_OPEN) == "open"
    assert status_name(table_pb2.TABLE_STATUS_CLOSING) == "closing"
    assert status_name(table_pb2.TABLE_STATUS_CLOSED) == "closed"
