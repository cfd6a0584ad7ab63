"""Flat immutable records (frozen dataclasses: a game's events) <-> protobuf messages with the
same field names, driven by the message's descriptor, so a game whose events are plain
records needs no hand-written codec, and the table (storing them) and a client (reading them
off a watch) share one mapping.

The rules, per field of the message:
- a scalar copies; with proto3 presence (`optional`), None is "not set";
- a repeated scalar is a tuple;
- a repeated message whose type has exactly one field (a wrapper: `Cards { repeated string
  cards }`, `Take { optional int32 pile }`) is a tuple of that field's values.
Encoding refuses a record field the message lacks and a message field the record lacks, so a
schema mismatch fails loudly (a test round-trips every record type) instead of dropping data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


class RecordMismatch(Exception):
    """A record and its message do not have the same fields."""


Put = Callable[[Message, Any], None]
Get = Callable[[Message], Any]


def _is_repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


def _wrapped(field: FieldDescriptor) -> FieldDescriptor:
    inner = field.message_type.fields if field.message_type is not None else []
    if len(inner) != 1:
        raise RecordMismatch(
            f"{field.full_name}: a repeated message must wrap exactly one field to map to a "
            "tuple of values"
        )
    return inner[0]


def _putter(field: FieldDescriptor) -> Put:
    name = field.name
    if _is_repeated(field):
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            inner = _wrapped(field)
            inner_put = _putter(inner)

            def put_wrapped(message: Message, values: Any) -> None:
                container = getattr(message, name)
                for value in values:
                    inner_put(container.add(), value)

            return put_wrapped

        def put_repeated(message: Message, values: Any) -> None:
            getattr(message, name).extend(values)

        return put_repeated
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        raise RecordMismatch(f"{field.full_name}: a record field cannot be a single message")

    def put_scalar(message: Message, value: Any) -> None:
        if value is not None:
            setattr(message, name, value)
        elif not field.has_presence:
            raise RecordMismatch(f"{field.full_name} cannot be None: declare it optional")

    return put_scalar


def _getter(field: FieldDescriptor) -> Get:
    name = field.name
    if _is_repeated(field):
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            inner_get = _getter(_wrapped(field))
            return lambda message: tuple(inner_get(item) for item in getattr(message, name))
        return lambda message: tuple(getattr(message, name))
    if field.has_presence:
        return lambda message: getattr(message, name) if message.HasField(name) else None
    return lambda message: getattr(message, name)


Plan = tuple[tuple[tuple[str, Put], ...], tuple[tuple[str, Get], ...]]
# How to write and read each (record class, message) pair: worked out once, not per event.
_PLANS: dict[tuple[type[Any], str], Plan] = {}


def _descriptor(message: Message) -> Descriptor:
    # The stubs type a message's DESCRIPTOR as either implementation's class; both are one.
    return cast(Descriptor, message.DESCRIPTOR)


def _plan(record: type[Any], descriptor: Descriptor) -> Plan:
    plan = _PLANS.get((record, descriptor.full_name))
    if plan is None:
        plan = _PLANS[(record, descriptor.full_name)] = _new_plan(record, descriptor)
    return plan


def _new_plan(record: type[Any], descriptor: Descriptor) -> Plan:
    names = tuple(f.name for f in dataclasses.fields(record))
    fields = descriptor.fields_by_name
    missing = [n for n in names if n not in fields]
    extra = [n for n in fields if n not in names]
    if missing or extra:
        raise RecordMismatch(
            f"{record.__name__} and {descriptor.full_name} differ: "
            f"not in the message {missing}, not in the record {extra}"
        )
    return (
        tuple((n, _putter(fields[n])) for n in names),
        tuple((n, _getter(fields[n])) for n in names),
    )


def to_message(record: object, message_type: type[M]) -> M:
    """`record` as a `message_type` message."""
    message = message_type()
    for name, put in _plan(type(record), _descriptor(message))[0]:
        put(message, getattr(record, name))
    return message


def from_message(message: Message, record: type[Any]) -> Any:
    """The `record` a message stands for."""
    getters = _plan(record, _descriptor(message))[1]
    return record(**{name: get(message) for name, get in getters})


def message_types(records: Mapping[str, type[Any]], module: Any) -> dict[type[Any], type[Message]]:
    """Each record class -> the message of the same class name in generated `module`
    (RecordMismatch naming the first that is missing or whose fields differ)."""
    found: dict[type[Any], type[Message]] = {}
    for record in records.values():
        message_type = getattr(module, record.__name__, None)
        if message_type is None:
            raise RecordMismatch(f"{module.__name__} has no message {record.__name__}: add it")
        _plan(record, _descriptor(message_type()))
        found[record] = message_type
    return found
