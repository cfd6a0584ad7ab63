"""Poker's events <-> their croupier.poker.v1 messages, by the structural mapping
(services/table/codec.py): every engine event class `services.games.poker.events.X` is the
message `croupier.poker.v1.X`, a `GameDefinition` travels as its catalog name. Poker's
messages were `croupier.table.v1.X` before poker had a package of its own: those names still
read, as aliases of the same messages (`FORMER_PACKAGE`).
"""

from __future__ import annotations

import typing

from google.protobuf.message import Message

from croupier.poker.v1 import events_pb2 as poker_pb2
from services.games.poker.catalog import GAMES
from services.games.poker.definitions import GameDefinition
from services.games.poker.events import EVENT_TYPES
from services.table import codec

# Where poker's messages lived before poker had a package of its own (their stored names then).
FORMER_PACKAGE = "croupier.table.v1"


def _game(raw: str) -> GameDefinition:
    game = GAMES.get(raw)
    if game is None:
        raise codec.CodecError(f"unknown game {raw!r}; known: {', '.join(sorted(GAMES))}")
    return game


codec.register_named(GameDefinition, _game)


def message_class(type_name: str) -> type[Message]:
    cls = getattr(poker_pb2, type_name, None)
    if cls is None:
        raise codec.CodecError(f"croupier/poker/v1/events.proto has no message {type_name}: add it")
    return typing.cast(type[Message], cls)


def to_message(event: object) -> Message:
    """The protobuf form of an engine event."""
    type_name = getattr(event, "TYPE", None)
    if type_name is None or EVENT_TYPES.get(type_name) is not type(event):
        raise codec.CodecError(f"{type(event).__name__} is not an engine event")
    message = message_class(type_name)()
    codec.fill_record(message, event)
    return message


def from_message(message: Message) -> object | None:
    """The engine event a stored message stands for; None when it is not poker's."""
    cls = EVENT_TYPES.get(message.DESCRIPTOR.name)
    if cls is None or message.DESCRIPTOR.file is not poker_pb2.DESCRIPTOR:
        return None
    return codec.build_record(cls, message)
