"""`StructuralCodec`: a game's events <-> their messages, field by field (adapter.EventCodec).

The usual way a game stores its events: every event class `X` (a frozen dataclass, or a
compiled record with `FIELDS`) is the message `croupier.<game>.v1.X` with the same field
names, mapped as services/table/codec.py describes (scalars copy, tuples are repeated fields,
nested records nested messages, `X | None` proto3 presence, enums their value). In a watch
stream the message travels inside the game's own wrapper, a message with one `oneof` over
every event, at the game's member of TableEvent's `event` oneof (field 100 on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import cast

from google.protobuf.message import Message

from croupier.table.v1 import events_pb2
from services.table import codec


class StructuralCodec:
    """The codec of a game whose `events` module holds one message per event class.

    `event_types` maps an event's stored type name to its class (a game's EVENT_TYPES);
    `message_name(type_name)` gives the message's name in `messages` (by default the part
    after the last "."); `wrapper_field` is the game's member of TableEvent.event."""

    def __init__(
        self,
        event_types: Mapping[str, type],
        messages: ModuleType,
        wrapper_field: str,
    ) -> None:
        self._messages = messages
        self._wrapper_field = wrapper_field
        self._class_of: dict[str, type] = {}  # message name -> event class
        self._message_of: dict[type, type[Message]] = {}  # event class -> message class
        for type_name, cls in event_types.items():
            name = type_name.rsplit(".", 1)[-1]
            message = getattr(messages, name, None)
            if message is None:
                raise codec.CodecError(
                    f"{messages.DESCRIPTOR.name} has no message {name} for {cls.__name__}: add it"
                )
            self._class_of[message.DESCRIPTOR.full_name] = cls
            self._message_of[cls] = message
        wrapper = events_pb2.TableEvent.DESCRIPTOR.fields_by_name.get(wrapper_field)
        if wrapper is None or wrapper.message_type is None:
            raise codec.CodecError(
                f"TableEvent has no member {wrapper_field!r}: add the game's event wrapper to "
                "its `event` oneof in croupier/table/v1/events.proto"
            )
        # The wrapper's field carrying each event message, by the message's full name.
        self._wrapped: dict[str, str] = {
            f.message_type.full_name: f.name
            for f in wrapper.message_type.fields
            if f.message_type is not None
        }
        missing = sorted(set(self._class_of) - set(self._wrapped))
        if missing:
            raise codec.CodecError(
                f"{wrapper.message_type.full_name} carries no {', '.join(missing)}: add them "
                "to its oneof"
            )

    def message_types(self) -> Sequence[type[Message]]:
        return list(self._message_of.values())

    def former_names(self) -> Sequence[tuple[str, type[Message]]]:
        return ()

    def to_message(self, event: object) -> Message:
        message_class = self._message_of.get(type(event))
        if message_class is None:
            raise codec.CodecError(f"{type(event).__name__} is not one of this game's events")
        message = message_class()
        codec.fill_record(message, event)
        return message

    def from_message(self, message: Message) -> object | None:
        cls = self._class_of.get(message.DESCRIPTOR.full_name)
        return None if cls is None else codec.build_record(cls, message)

    def table_event(self, message: Message, event: events_pb2.TableEvent) -> None:
        wrapper = cast(Message, getattr(event, self._wrapper_field))
        getattr(wrapper, self._wrapped[message.DESCRIPTOR.full_name]).CopyFrom(message)
