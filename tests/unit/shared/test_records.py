"""The record codec (services/shared/records.py) refuses a record and a message whose fields
differ, and a None where the message has no presence, instead of dropping data."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from croupier.spit.v1 import events_pb2
from services.shared import records


@dataclass(frozen=True)
class Seated:
    seat: int
    player: str


@dataclass(frozen=True)
class Ready:
    seat: int | None
    timed_out: bool


def test_a_record_and_a_message_with_different_fields_are_refused() -> None:
    with pytest.raises(records.RecordMismatch, match=r"not in the record \['stack'\]"):
        records.to_message(Seated(0, "ann"), events_pb2.PlayerSeated)


def test_none_needs_an_optional_field() -> None:
    with pytest.raises(records.RecordMismatch, match="seat cannot be None: declare it optional"):
        records.to_message(Ready(None, False), events_pb2.PlayerReady)
    message = records.to_message(Ready(1, True), events_pb2.PlayerReady)
    assert records.from_message(message, Ready) == Ready(1, True)


def test_a_module_without_the_message_is_named() -> None:
    with pytest.raises(records.RecordMismatch, match="has no message Seated"):
        records.message_types({"x": Seated}, events_pb2)
