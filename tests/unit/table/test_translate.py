"""The TableView the service sends: what its fields mean between hands."""

from __future__ import annotations

import pytest

from croupier.poker.v1 import events_pb2 as poker_pb2
from croupier.table.v1 import events_pb2, table_pb2
from services.games.poker.views import SeatView, View
from services.table import codec, translate


def _view(hand: int | None) -> table_pb2.TableView:
    view = View(viewer=None, game="texas-holdem", structure="no-limit", seats=(), hand=hand)
    return translate.view_to_proto(view, "t1", 80, table_pb2.TableOptions(), (), 0, 0, last_hand=4)


def test_between_hands_the_view_names_the_last_hand_and_no_hand_in_progress() -> None:
    message = _view(None)
    assert message.hand_number == 4
    assert not message.hand_in_progress


def test_during_a_hand_the_view_names_that_hand() -> None:
    message = _view(5)
    assert message.hand_number == 5
    assert message.hand_in_progress


def _seated_view(to_act: int | None) -> View:
    seats = (SeatView(0, "ann", 100, False), SeatView(2, "bob", 80, False))
    return View(
        viewer=None,
        game="texas-holdem",
        structure="no-limit",
        seats=seats,
        hand=3,
        to_act=to_act,
    )


def test_every_occupied_seat_shows_its_remaining_time_bank_to_every_viewer() -> None:
    message = translate.view_to_proto(
        _seated_view(0),
        "t1",
        9,
        table_pb2.TableOptions(),
        (),
        1_000,
        4,
        last_hand=2,
        time_banks={0: 700, 2: 1000, 5: 300},  # seat 5 is free: not shown
        deadline_from_time_bank=True,
    )
    assert [(s.seat, s.time_bank_ms) for s in message.seats] == [(0, 700), (2, 1000)]
    assert message.deadline_from_time_bank


def test_a_time_bank_extension_is_only_reported_while_someone_is_to_act() -> None:
    message = translate.view_to_proto(
        _seated_view(None),
        "t1",
        9,
        table_pb2.TableOptions(),
        (),
        0,
        0,
        last_hand=2,
        deadline_from_time_bank=True,
    )
    assert not message.deadline_from_time_bank


def test_the_view_carries_the_requested_bots_and_the_bots_that_bought_in() -> None:
    message = translate.view_to_proto(
        _seated_view(None),
        "t1",
        9,
        table_pb2.TableOptions(),
        (),
        0,
        0,
        last_hand=2,
        requested_bots=(("random", 0.0), ("equity", 0.75)),
        bots_seated=("bot-random-0-t1-s0",),
    )
    assert [(b.policy, b.difficulty) for b in message.requested_bots] == [
        ("random", 0.0),
        ("equity", 0.75),
    ]
    assert list(message.bots_seated) == ["bot-random-0-t1-s0"]


def test_every_event_type_the_stream_holds_travels_in_its_own_field_of_table_event() -> None:
    for type_name in codec.registry().type_names():
        package = poker_pb2 if type_name.startswith("croupier.poker.v1.") else events_pb2
        message = getattr(package, type_name.rpartition(".")[2])()
        wrapped = translate.event_to_proto("t1", 3, 1000, message)
        field = wrapped.WhichOneof("event")
        assert field == translate.event_field(message).name
        assert getattr(wrapped, field).DESCRIPTOR is message.DESCRIPTOR


def test_a_message_table_event_cannot_carry_is_refused_naming_it() -> None:
    with pytest.raises(codec.CodecError, match=r"croupier\.table\.v1\.TableView"):
        translate.event_to_proto("t1", 3, 1000, table_pb2.TableView())
