"""Records <-> protobuf messages, field by field: the structural mapping every game's event
codec may use (services/table/games/structural.py, poker's poker_codec.py), and the
catalog-wide encoding and decoding of a table stream's messages.

A record (a frozen dataclass, or a compiled record with `FIELDS`) is stored as a message with
the same field names: scalars copy, `tuple[...]` becomes a repeated field, nested records
become nested messages, a fixed pair such as `tuple[int, SeatRank]` becomes a message whose
fields are taken in field-number order, `X | None` uses proto3 presence, enums travel as
their string value, and a value of a registered named type (`register_named`: poker's
`GameDefinition`) as its name. Encoding refuses a field the message lacks (each game's tests
round-trip every event type), so the stream alone always replays the table.

The table service's own events (ledger, dealer, deadline records) are protobuf messages
already and pass through unchanged.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2
from services.shared.eventstore import EventRegistry

# The table service's own events: stored as they are.
SHELL_EVENT_TYPES: tuple[type[Message], ...] = (
    events_pb2.TableCreated,
    events_pb2.BuyInReserved,
    events_pb2.BuyInPosted,
    events_pb2.CashOutPosted,
    events_pb2.ShuffleCommitted,
    events_pb2.ShuffleAnnounced,
    events_pb2.ShuffleSealed,
    events_pb2.ShuffleWithdrawn,
    events_pb2.ShuffleRevealed,
    events_pb2.ShuffleDealt,
    events_pb2.HandSettled,
    events_pb2.ActionRequested,
    events_pb2.CommandAccepted,
    events_pb2.TimeBankExtended,
    events_pb2.TimeBankRefilled,
    events_pb2.TableClosing,
)


class CodecError(Exception):
    """An engine event cannot be expressed in its protobuf message (a schema mismatch)."""


def registry() -> EventRegistry:
    """An event registry knowing every message a table stream may hold (of every game the
    catalog hosts: services/table/event_codec.py)."""
    from services.table.event_codec import TableCodec

    return TableCodec().registry()


def to_message(event: object) -> Message:
    """The stored form of any hosted game's event (the envelope's messages as they are)."""
    if isinstance(event, Message):
        return event
    from services.table.event_codec import TableCodec

    return TableCodec.default().encode(event)


def from_message(message: Message) -> object:
    """The event a stored message stands for: a hosted game's, else the message itself."""
    from services.table.event_codec import TableCodec

    return TableCodec.default().decode(message)


# Types stored by name: the type -> how a name finds its value again.
_NAMED: dict[type, Callable[[str], object]] = {}


def register_named(cls: type, lookup: Callable[[str], object]) -> None:
    """Store values of `cls` as their `name` and read them back with `lookup(name)` (which
    raises CodecError for a name it does not know)."""
    _NAMED[cls] = lookup


def fill_record(message: Message, record: object) -> None:
    """Write a record (an engine record with `FIELDS`, or a dataclass) into `message`, whose
    fields are named like the record's (the structural mapping this module describes)."""
    _fill(message, record)


def build_record(cls: type, message: Message) -> object:
    """The record of `cls` that `message` holds (the inverse of `fill_record`)."""
    return _build(cls, message)


# ---------------------------------------------------------------- encoding


def _fill(message: Message, obj: object) -> None:
    for name, setter in _fill_plan(typing.cast(Any, type(obj)), message.DESCRIPTOR):
        setter(message, name, getattr(obj, name) if name else obj)


Setter = Callable[[Message, str, Any], None]


@cache
def _fill_plan(cls: Any, descriptor: Descriptor) -> tuple[tuple[str, Setter], ...]:
    """How to write an object of `cls` into a `descriptor` message: worked out once per type
    (dataclass fields and descriptors are walked here, not per event). A fixed pair/triple
    (a tuple) is one step that writes its items in field-number order."""
    if issubclass(cls, tuple):
        fields = sorted(descriptor.fields, key=lambda f: f.number)
        setters = [_setter(f) for f in fields]
        names = [f.name for f in fields]

        def set_items(message: Message, _: str, items: Any) -> None:
            for name, setter, value in zip(names, setters, items, strict=True):
                setter(message, name, value)

        return (("", set_items),)
    plan = []
    fields_by_name = descriptor.fields_by_name
    for name in _field_names(cls):
        field_descriptor = fields_by_name.get(name)
        if field_descriptor is None:
            raise CodecError(
                f"{descriptor.full_name} lacks field {name!r} of "
                f"{cls.__name__}: add it to events.proto"
            )
        plan.append((name, _setter(field_descriptor)))
    return tuple(plan)


def _field_names(cls: Any) -> tuple[str, ...]:
    """A record's fields: an engine event class's `FIELDS`, else the dataclass fields."""
    fields = getattr(cls, "FIELDS", None)
    if fields is not None:
        return tuple(name for name, _ in fields)
    return tuple(field.name for field in dataclasses.fields(cls))


def _is_record(hint: Any) -> bool:
    return isinstance(hint, type) and (
        dataclasses.is_dataclass(hint) or getattr(hint, "FIELDS", None) is not None
    )


def _setter(descriptor: FieldDescriptor) -> Setter:
    """A function writing one value into `descriptor`'s field (None leaves it unset)."""
    if descriptor.is_repeated:
        if descriptor.message_type is not None:

            def add_messages(message: Message, name: str, value: Any) -> None:
                if value is not None:
                    container = getattr(message, name)
                    for item in value:
                        _fill(container.add(), item)

            return add_messages

        def extend(message: Message, name: str, value: Any) -> None:
            if value is not None:
                getattr(message, name).extend([_scalar(item) for item in value])

        return extend
    if descriptor.message_type is not None:

        def set_message(message: Message, name: str, value: Any) -> None:
            if value is not None:
                sub: Message = getattr(message, name)
                sub.SetInParent()
                _fill(sub, value)

        return set_message

    def set_scalar(message: Message, name: str, value: Any) -> None:
        if value is not None:
            setattr(message, name, _scalar(value))

    return set_scalar


# Values stored as they are (most of every event): checked first, by exact type.
_PLAIN = frozenset({int, str, bool, float, bytes})


def _scalar(value: object) -> object:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind in _NAMED:
        return value.name  # type: ignore[attr-defined]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, frozenset):
        raise CodecError("sets are not stored in events; use a tuple")
    return value


# ---------------------------------------------------------------- decoding


@cache
def _hints(cls: type) -> dict[str, Any]:
    fields = getattr(cls, "FIELDS", None)
    if fields is None:
        return typing.get_type_hints(cls)
    # An engine event class (compiled, no annotations): its `FIELDS` annotations, evaluated
    # in its module as `get_type_hints` evaluates string annotations.
    holder = types.SimpleNamespace(__annotations__=dict(fields))
    return typing.get_type_hints(holder, vars(sys.modules[cls.__module__]))


def _build(cls: type, message: Message) -> object:
    fields = {name: read(message) for name, read in _plan(cls, message.DESCRIPTOR)}
    return cls(**{name: value for name, value in fields.items() if value is not _ABSENT})


# What a reader returns for a field with presence that was not set and is not `X | None`
# (added after events were stored): the constructor's default applies, as for a field the
# message lacks.
_ABSENT = object()


Reader = Callable[[Message], object]


@cache
def _plan(cls: type, descriptor: Descriptor) -> tuple[tuple[str, Reader], ...]:
    """How to read each dataclass field of `cls` from a `descriptor` message: worked out once
    per type (type hints and descriptors are walked here, not per event)."""
    hints = _hints(cls)
    fields_by_name = descriptor.fields_by_name
    plan = []
    for name in _field_names(cls):
        field_descriptor = fields_by_name.get(name)
        if field_descriptor is None:
            continue  # the constructor's default applies
        plan.append((name, _reader(field_descriptor, hints[name])))
    return tuple(plan)


def _reader(descriptor: FieldDescriptor, hint: Any) -> Reader:
    """A function reading `descriptor`'s field from a message as `hint`."""
    name = descriptor.name
    inner = _optional_inner(hint)
    absent_is_none = inner is not None and descriptor.has_presence
    if inner is not None:
        hint = inner
    if descriptor.is_repeated:
        (item_hint, *_rest) = typing.get_args(hint)
        convert_item = _converter(item_hint)

        def read_repeated(message: Message) -> object:
            return tuple(convert_item(item) for item in getattr(message, name))

        return read_repeated
    convert = _converter(hint)
    if absent_is_none:

        def read_optional(message: Message) -> object:
            if not message.HasField(name):
                return None
            return convert(getattr(message, name))

        return read_optional
    if descriptor.has_presence and descriptor.message_type is None:

        def read_or_default(message: Message) -> object:
            if not message.HasField(name):
                return _ABSENT
            return convert(getattr(message, name))

        return read_or_default

    def read(message: Message) -> object:
        return convert(getattr(message, name))

    return read


def _converter(hint: Any) -> Callable[[Any], object]:
    """A function turning one raw protobuf value into `hint`."""
    inner = _optional_inner(hint)
    if inner is not None:
        hint = inner
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return typing.cast(Callable[[Any], object], hint)
    if hint in _NAMED:
        return _NAMED[hint]
    if _is_record(hint):
        cls = hint
        return lambda raw: _build(cls, raw)
    if typing.get_origin(hint) is tuple:  # fixed pair from a message, fields in number order
        args = typing.get_args(hint)
        return lambda raw: tuple(read(raw) for read in _tuple_plan(raw.DESCRIPTOR, args))
    if hint is int:
        return int
    return _identity


@cache
def _tuple_plan(descriptor: Descriptor, args: tuple[Any, ...]) -> tuple[Reader, ...]:
    """How to read a fixed tuple of `args` from a `descriptor` message (fields by number)."""
    fields = sorted(descriptor.fields, key=lambda f: f.number)
    return tuple(_reader(field, arg) for field, arg in zip(fields, args, strict=True))


def _identity(raw: Any) -> object:
    return raw


def _optional_inner(hint: Any) -> Any | None:
    """X for `X | None`, else None."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(hint)) == 2:
            return args[0]
    return None
