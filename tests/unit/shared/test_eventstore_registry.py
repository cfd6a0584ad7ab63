"""Event registry, key names and the in-memory store's idempotency retention (pure, no I/O)."""

from __future__ import annotations

import pytest
from google.protobuf.wrappers_pb2 import BoolValue, StringValue

from services.shared.errors import InvalidArgument
from services.shared.eventstore import (
    AppendResult,
    EventDecodingError,
    EventRegistry,
    InMemoryEventStore,
    UnknownEventType,
    Upcaster,
    stream_key,
)
from services.shared.eventstore.durability import durability_from_env
from services.shared.eventstore.keys import hash_tag, idempotency_key, snapshot_key, version_key


def test_type_name_is_the_protobuf_full_name() -> None:
    registry = EventRegistry()
    registry.register(StringValue, schema_version=2)
    assert registry.encode(StringValue(value="x"))[:2] == ("google.protobuf.StringValue", 2)


def test_registering_a_class_again_at_another_schema_version_is_refused() -> None:
    registry = EventRegistry()
    registry.register(StringValue)
    registry.register(StringValue)
    with pytest.raises(ValueError, match="already registered as schema version 1"):
        registry.register(StringValue, schema_version=2)


def test_unknown_type_error_names_the_type_and_the_registered_ones() -> None:
    registry = EventRegistry()
    registry.register(StringValue)
    with pytest.raises(UnknownEventType) as caught:
        registry.decode("croupier.table.v1.Gone", 1, b"")
    assert "'croupier.table.v1.Gone'" in str(caught.value)
    assert "google.protobuf.StringValue" in str(caught.value)


def test_an_alias_reads_events_stored_under_a_moved_message_s_old_name() -> None:
    registry = EventRegistry()
    registry.register(StringValue)
    registry.register_alias("croupier.old.v1.Text", StringValue)
    payload = StringValue(value="kept").SerializeToString()
    assert registry.decode("croupier.old.v1.Text", 1, payload) == StringValue(value="kept")
    # New appends use the new name; the old one is no registered type of its own.
    assert registry.encode(StringValue(value="x"))[0] == "google.protobuf.StringValue"
    assert "croupier.old.v1.Text" not in registry.type_names()


def test_an_alias_needs_its_message_registered_and_names_one_message() -> None:
    registry = EventRegistry()
    with pytest.raises(ValueError, match=r"register google\.protobuf\.StringValue before"):
        registry.register_alias("croupier.old.v1.Text", StringValue)
    registry.register(StringValue)
    registry.register(BoolValue)
    registry.register_alias("croupier.old.v1.Text", StringValue)
    registry.register_alias("croupier.old.v1.Text", StringValue)  # again: a no-op
    with pytest.raises(ValueError, match="already reads as another message"):
        registry.register_alias("croupier.old.v1.Text", BoolValue)


def test_a_missing_upcaster_is_a_clear_error() -> None:
    registry = EventRegistry()
    registry.register(StringValue, schema_version=3)
    registry.add_upcaster("google.protobuf.StringValue", 1, lambda payload: payload)
    with pytest.raises(EventDecodingError, match="no upcaster to 3"):
        registry.decode("google.protobuf.StringValue", 1, b"")


def test_upcasters_chain_from_the_stored_version_to_the_current_one() -> None:
    registry = EventRegistry()
    registry.register(StringValue, schema_version=3)

    def mark(to_version: int) -> Upcaster:
        def upcast(payload: bytes) -> bytes:
            old = StringValue.FromString(payload).value
            return StringValue(value=f"{old}>{to_version}").SerializeToString()

        return upcast

    for version in (1, 2):
        registry.add_upcaster("google.protobuf.StringValue", version, mark(version + 1))
    payload = StringValue(value="v1").SerializeToString()
    decoded = registry.decode("google.protobuf.StringValue", 1, payload)
    assert isinstance(decoded, StringValue)
    assert decoded.value == "v1>2>3"


def test_a_corrupt_payload_is_a_decoding_error_not_a_crash() -> None:
    registry = EventRegistry()
    registry.register(BoolValue)
    with pytest.raises(EventDecodingError, match="payload is not valid"):
        registry.decode("google.protobuf.BoolValue", 1, b"\xff\xff\xff")


def test_every_key_of_an_aggregate_carries_its_hash_tag() -> None:
    stream = stream_key("table", "42")
    assert stream == "{table:42}:events"
    assert hash_tag(stream) == "{table:42}"
    assert version_key(stream) == "{table:42}:version"
    assert snapshot_key(stream) == "{table:42}:snapshot"
    assert idempotency_key(stream, "h7/fold") == "{table:42}:idem:h7/fold"


@pytest.mark.parametrize(("kind", "ident"), [("table", ""), ("ta{ble", "1"), ("table", "4 2")])
def test_stream_key_rejects_parts_that_would_break_the_hash_tag(kind: str, ident: str) -> None:
    with pytest.raises(InvalidArgument):
        stream_key(kind, ident)


def test_an_idempotency_key_is_forgotten_after_its_retention() -> None:
    now = [1000.0]
    registry = EventRegistry()
    registry.register(StringValue)
    store = InMemoryEventStore(registry, idempotency_ttl_s=60, clock=lambda: now[0])
    stream = stream_key("t", "1")
    assert store.append(stream, [StringValue(value="a")], 0, "k") == AppendResult(1, 1)
    now[0] += 59
    assert store.append(stream, [StringValue(value="a")], 0, "k").deduplicated
    now[0] += 2
    assert store.append(stream, [StringValue(value="a")], 1, "k") == AppendResult(2, 2)


def test_durability_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CROUPIER_DURABILITY", raising=False)
    assert durability_from_env() == "everysec"
    monkeypatch.setenv("CROUPIER_DURABILITY", "STRICT")
    assert durability_from_env() == "strict"
    monkeypatch.setenv("CROUPIER_DURABILITY", "sometimes")
    with pytest.raises(ValueError, match="'everysec' or 'strict'"):
        durability_from_env()
