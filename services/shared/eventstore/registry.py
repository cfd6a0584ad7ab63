"""Which protobuf message each stored event is, by a stable type name and a schema version.

The type name is the message's full protobuf name (`croupier.poker.v1.HandStarted`), which
survives Python refactors. When a message's meaning changes incompatibly, bump its schema
version and register an upcaster that rewrites the old payload into the new one, so old streams
still replay. (Adding a field needs no new version: protobuf decoding already tolerates it.) A
message that moves to another package, fields and numbers unchanged, keeps its old name as an
alias (`register_alias`), so streams written before the move replay too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from google.protobuf.message import DecodeError, Message

# Rewrites a payload written at schema version N into the payload of version N + 1.
Upcaster = Callable[[bytes], bytes]


class EventDecodingError(Exception):
    """A stored event cannot be turned back into a message. Says which event and why."""


class UnknownEventType(EventDecodingError):
    """The stream holds (or a caller tried to append) a type this process never registered."""

    def __init__(self, type_name: str, known: list[str], where: str = "") -> None:
        self.type_name = type_name
        known_text = ", ".join(sorted(known)) or "none"
        super().__init__(
            f"unknown event type {type_name!r}{where}; registered types: {known_text}. "
            "Register the message class with EventRegistry.register()"
        )


@dataclass(frozen=True, slots=True)
class _Registration:
    message_type: type[Message]
    schema_version: int


class EventRegistry:
    """Maps type names to protobuf classes (and back), thread-safe."""

    def __init__(self) -> None:
        self._by_name: dict[str, _Registration] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        # Old type names (a message that moved) -> the registration they read as.
        self._aliases: dict[str, _Registration] = {}
        self._lock = threading.Lock()

    def register(self, message_type: type[Message], schema_version: int = 1) -> None:
        """Register a class at its current schema version (registering it again is a no-op)."""
        if schema_version < 1:
            raise ValueError(f"schema version must be >= 1, got {schema_version}")
        name = message_type.DESCRIPTOR.full_name
        with self._lock:
            existing = self._by_name.get(name)
            if existing is not None and existing != _Registration(message_type, schema_version):
                raise ValueError(
                    f"{name} is already registered as schema version {existing.schema_version}"
                )
            self._by_name[name] = _Registration(message_type, schema_version)

    def register_alias(self, old_name: str, message_type: type[Message]) -> None:
        """Read events stored under `old_name` as `message_type` (registered already): a
        message that moved to another package keeps its fields and numbers, so its old
        payloads parse as the new message. New appends use the new name."""
        with self._lock:
            registration = self._by_name.get(message_type.DESCRIPTOR.full_name)
            if registration is None or registration.message_type is not message_type:
                raise ValueError(
                    f"register {message_type.DESCRIPTOR.full_name} before aliasing {old_name}"
                )
            existing = self._aliases.get(old_name)
            if existing is not None and existing is not registration:
                raise ValueError(f"{old_name} already reads as another message")
            self._aliases[old_name] = registration

    def add_upcaster(self, type_name: str, from_version: int, upcast: Upcaster) -> None:
        """Teach the registry to turn a version `from_version` payload into version + 1."""
        with self._lock:
            self._upcasters[(type_name, from_version)] = upcast

    def type_names(self) -> list[str]:
        with self._lock:
            return list(self._by_name)

    def encode(self, message: Message) -> tuple[str, int, bytes]:
        """(type name, schema version, payload) for a registered message."""
        name = message.DESCRIPTOR.full_name
        with self._lock:
            registration = self._by_name.get(name)
        if registration is None or not isinstance(message, registration.message_type):
            raise UnknownEventType(name, self.type_names(), " (cannot append it)")
        return name, registration.schema_version, message.SerializeToString(deterministic=True)

    def decode(
        self,
        type_name: str,
        schema_version: int,
        payload: bytes,
        stream: str = "",
        version: int = 0,
    ) -> Message:
        """The message for a stored payload, upcast to the registered schema version.
        `stream` and `version` only name the event in error messages."""
        registration = self._by_name.get(type_name)  # dict reads are atomic; writes lock
        if registration is None:
            registration = self._aliases.get(type_name)
        if registration is not None and schema_version == registration.schema_version:
            return self._parse(registration.message_type, payload, type_name, stream, version)
        where = f" (event {version} of {stream})" if stream else ""
        if registration is None:
            raise UnknownEventType(type_name, self.type_names(), where)
        current = registration.schema_version
        if schema_version > current:
            raise EventDecodingError(
                f"{type_name}{where} was written at schema version {schema_version} but this "
                f"process knows only up to {current}: deploy the newer code to read it"
            )
        while schema_version < current:
            with self._lock:
                upcast = self._upcasters.get((type_name, schema_version))
            if upcast is None:
                raise EventDecodingError(
                    f"{type_name}{where} is at schema version {schema_version} and no upcaster "
                    f"to {schema_version + 1} is registered (current version {current})"
                )
            payload = upcast(payload)
            schema_version += 1
        return self._parse(registration.message_type, payload, type_name, stream, version)

    @staticmethod
    def _parse(
        message_type: type[Message], payload: bytes, type_name: str, stream: str, version: int
    ) -> Message:
        message = message_type()
        try:
            message.ParseFromString(payload)
        except DecodeError as exc:
            where = f" (event {version} of {stream})" if stream else ""
            raise EventDecodingError(f"{type_name}{where}: payload is not valid: {exc}") from exc
        return message
