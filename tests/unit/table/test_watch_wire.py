"""Batched WatchTable responses joined from cached bytes are byte for byte the messages'
serialization, and no watcher ever gets bytes made for another seat."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from typing import Any, cast

import grpc
import pytest

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.games.poker import events as ev
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.shared.auth import Principal, Role
from services.table import codec, translate, watch_wire
from services.table.fanout import HubEvent
from services.table.folding import fold_events
from services.table.games import poker
from services.table.shell import ShellState, Table
from services.table.watching import TableWatcher, _batch_for, _view_for, redact_any

HOLE = {0: ("As", "Kd"), 1: ("7c", "7h"), 2: ("Qs", "Jd")}


def entry_of(version: int, event: object, recorded_at_ms: int = 1_764_500_000_123) -> HubEvent:
    return HubEvent(version, recorded_at_ms, event, codec.to_message(event))


def with_unknown_field(message: events_pb2.ActionRequested) -> events_pb2.ActionRequested:
    """`message` as an older build parses it from a newer one's append (field 15 unknown)."""
    extra = bytes([15 << 3 | 2, 3]) + b"new"
    return events_pb2.ActionRequested.FromString(message.SerializeToString() + extra)


def hand(first_version: int = 7) -> list[HubEvent]:
    """A hand's worth of streamed and unstreamed events: hidden and public cards, shell
    events, an event with every field at its default, a stored message with a field this
    build does not know, and sizes whose lengths take more than one varint byte."""
    events: list[object] = [
        ev.HandStarted(hand=3, button=0, seats=(0, 1, 2), stacks=(100, 100, 100)),
        events_pb2.CommandAccepted(key="k", by="alice", events=2),
        *(ev.CardsDealt(seat=s, cards=cards) for s, cards in HOLE.items()),
        ev.CardsDealt(seat=None, cards=("2c", "3d", "4h"), face_up=True, burned=("5s",)),
        ev.ActionTaken(seat=1, action="raise", to=2**40, added=2**33),
        with_unknown_field(
            events_pb2.ActionRequested(
                hand=3, seat=2, action_number=4, legal_actions=["fold", "call"] * 40
            )
        ),
        events_pb2.ShuffleRevealed(hand=3, shuffle_id="s", reveal_json='{"x": 1}' * 30),
        events_pb2.TimeBankRefilled(),
        ev.HandMucked(seat=1),
    ]
    return [entry_of(first_version + i, e) for i, e in enumerate(events)]


def expected_batch(entries: Sequence[HubEvent], seats: Sequence[int | None]) -> bytes:
    """The straightforward construction: each event redacted for the seat the viewer holds
    at it, wrapped in messages, serialized as the generated code serializes a response."""
    events = []
    for entry, seat in zip(entries, seats, strict=True):
        visible = redact_any(entry.event, seat, poker.ADAPTER)
        if visible is not None:
            events.append(
                translate.event_to_proto(
                    "t1", entry.version, entry.recorded_at_ms, visible, poker.ADAPTER
                )
            )
    batch = table_pb2.TableEventBatch(events=events)
    return table_pb2.WatchTableResponse(events=batch).SerializeToString()


def joined(entries: Sequence[HubEvent], seat: int | None) -> bytes:
    views = [v for v in (_view_for("t1", e, seat, poker.ADAPTER) for e in entries) if v is not None]
    return _batch_for(entries, seat, views, shared=True)


@pytest.mark.parametrize("value", [1, 127, 128, 300, 16383, 16384, 2**32, 2**63 - 1])
def test_a_varint_is_protobufs_own_encoding_of_the_number(value: int) -> None:
    encoded = events_pb2.TableEvent(version=value).SerializeToString()
    assert watch_wire.varint(value) == encoded[1:]  # (after the tag byte of field 2)
    assert watch_wire.varint(0) == b"\x00"  # (a zero field is not serialized at all)


def test_a_negative_length_is_refused() -> None:
    with pytest.raises(ValueError, match="never negative"):
        watch_wire.varint(-1)


@pytest.mark.parametrize("seat", [None, 0, 1, 2, 5])
def test_a_batch_is_byte_for_byte_the_serialization_of_the_same_messages(seat: int | None) -> None:
    entries = hand()
    assert joined(entries, seat) == expected_batch(entries, [seat] * len(entries))


def test_a_batch_whose_lengths_take_several_varint_bytes_is_still_the_same_bytes() -> None:
    entries = [e for i in range(40) for e in hand(first_version=1 + 20 * i)]  # ~35 kB
    response = joined(entries, 1)
    assert len(response) > 2**14
    assert response == expected_batch(entries, [1] * len(entries))


def test_one_event_per_message_is_unchanged_by_the_serializer() -> None:
    response = table_pb2.WatchTableResponse(event=events_pb2.TableEvent(table_id="t1"))
    assert watch_wire.serialize_response(response) == response.SerializeToString()
    assert watch_wire.serialize_response(b"\x1a\x00") == b"\x1a\x00"


class _OneBatch:
    """A fan-out handing every watcher the same one batch, as a hub does to caught-up
    watchers of a table."""

    def __init__(self, entries: list[HubEvent]) -> None:
        self.entries = entries

    def listen(
        self, stream: str, from_version: int, stop: threading.Event
    ) -> Iterator[list[HubEvent]]:
        yield self.entries


def _stream(entries: list[HubEvent], table: Table, subject: str) -> bytes:
    watcher = object.__new__(TableWatcher)
    watcher.fanout = _OneBatch(entries)  # type: ignore[assignment]
    principal = Principal(subject, Role.PLAYER)
    stream = watcher._follow(table, principal, "s", threading.Event(), batch=True)
    (message,) = [watch_wire.serialize_response(m) for m in stream]
    return message


def test_no_order_of_watchers_ever_hands_one_seat_bytes_cached_for_another() -> None:
    """Watchers of seats 0, 1 and 2, a spectator, and a player who sits down inside the batch
    take the same batch in every order: each gets the bytes made for its own seats only."""
    seats = [ev.PlayerSeated(seat=s, player=f"p{s}", stack=100) for s in HOLE]
    state = poker.ADAPTER.rules.initial_state(TableConfig(game=TEXAS_HOLDEM, seats=4))
    table = fold_events(Table("t1", 0, poker.ADAPTER, state, ShellState()), seats, 1)
    late = ev.PlayerSeated(seat=3, player="late", stack=100)
    watchers = {"p0": 0, "p1": 1, "p2": 2, "sam": None, "late": None}
    for order in itertools.permutations(watchers):
        entries = [*hand(), entry_of(20, late), entry_of(21, ev.CardsDealt(3, ("9s", "9d")))]
        for subject in order:
            seat = watchers[subject]
            viewers = [seat] * (len(entries) - 2) + [3 if subject == "late" else seat] * 2
            got = _stream(entries, table, subject)
            assert got == expected_batch(entries, viewers), (order, subject)
            for other, cards in {**HOLE, 3: ("9s", "9d")}.items():
                if other != viewers[-1]:
                    assert cards[0].encode() not in got, (order, subject, other)


def test_the_table_service_registers_watch_table_with_the_bytes_serializer_only() -> None:
    class Server:
        def __init__(self) -> None:
            self.generic: list[grpc.GenericRpcHandler] = []
            self.registered: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

        def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
            self.generic.extend(handlers)

        def add_registered_method_handlers(self, service: str, handlers: Any) -> None:
            self.registered = dict(handlers)

    server = Server()
    # ignore[abstract]: the generated stub declares every servicer method abstract, but the
    # generated class is concrete (each method answers UNIMPLEMENTED): all registration needs.
    servicer = table_pb2_grpc.TableServiceServicer()  # type: ignore[abstract]
    # The recording server has the two methods registration calls (as watch_wire's own
    # _Registrar, which it casts the same way).
    watch_wire.add_table_service(servicer, cast(grpc.Server, server))
    service = table_pb2.DESCRIPTOR.services_by_name["TableService"]
    assert set(server.registered) == {m.name for m in service.methods}
    for method in service.methods:
        handler = server.registered[method.name]
        response_class = getattr(table_pb2, method.output_type.name)
        serializer = handler.response_serializer
        if method.name == "WatchTable":
            assert serializer is watch_wire.serialize_response
        else:
            assert serializer == response_class.SerializeToString, method.name
        details = type("Details", (), {"method": f"/{service.full_name}/{method.name}"})()
        assert server.generic[0].service(details) is handler
