"""The TableView the service sends: what its envelope fields mean for any game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from croupier.highcard.v1 import events_pb2 as highcard_pb2
from croupier.poker.v1 import events_pb2 as poker_pb2
from croupier.spit.v1 import events_pb2 as spit_events_pb2
from croupier.table.v1 import events_pb2, table_pb2
from croupier.videopoker.v1 import events_pb2 as videopoker_events_pb2
from services.games import contract as c
from services.games.timebank import TimeBankOpened, TimeBanks
from services.games.timebank import apply as apply_bank
from services.table import codec, translate
from services.table.games import highcard, poker, spit, videopoker
from services.table.games.adapter import GameTable, Rounds
from services.table.shell import Decision, ShellState, Table


@dataclass
class Scene:
    """What a stub game shows: its seats, who may act, what it owes, where its rounds are."""

    seats: tuple[c.SeatSummary, ...] = ()
    acting: frozenset[int] = frozenset()
    owed: tuple[c.Deadline, ...] = ()
    rounds: Rounds = field(default_factory=lambda: Rounds(None, 0))
    filled: list[int] = field(default_factory=list)


class StubRules:
    def to_act(self, state: Scene) -> frozenset[int]:
        return state.acting

    def seats(self, state: Scene) -> Sequence[c.SeatSummary]:
        return state.seats

    def deadlines(self, state: Scene) -> Sequence[c.Deadline]:
        return state.owed

    def view_for(self, state: Scene, viewer: int | None) -> Scene:
        return state


class StubGame:
    name = "stub"
    proto_field = "stub"
    rules = StubRules()

    def rounds(self, state: Scene) -> Rounds:
        return state.rounds

    def fill_options(self, state: Scene, options: table_pb2.TableOptions) -> None:
        options.seats = 9

    def next_card(self, state: Scene) -> table_pb2.CardDue | None:
        return None

    def fill_view(
        self, view: Scene, message: table_pb2.TableView, seats: Mapping[int, Any]
    ) -> None:
        view.filled.extend(seats)


def _table(scene: Scene, **shell: Any) -> Table:
    return Table("t1", 9, cast(GameTable, StubGame()), scene, ShellState(**shell))


ANN = c.SeatSummary(0, "ann", 100)
BOB = c.SeatSummary(2, "bob", 80)


def test_between_rounds_the_view_names_the_last_round_and_none_in_progress() -> None:
    message = translate.view_to_proto(_table(Scene(rounds=Rounds(None, 4))), None)
    assert (message.hand_number, message.hand_in_progress) == (4, False)
    assert message.options.seats == 9  # the game's own options


def test_during_a_round_the_view_names_that_round() -> None:
    message = translate.view_to_proto(_table(Scene(rounds=Rounds(5, 5))), 0)
    assert (message.hand_number, message.hand_in_progress, message.viewer_seat) == (5, True, 0)


def test_every_seat_that_may_act_and_every_open_deadline_is_shown() -> None:
    scene = Scene(
        seats=(ANN, BOB),
        acting=frozenset({0, 2}),
        owed=(c.Deadline(0, "3/turn"), c.Deadline(2, "3/turn")),
        rounds=Rounds(3, 3),
    )
    decisions = (
        Decision(3, 2, 1, 7_000, game_id="3/turn"),
        Decision(3, 0, 2, 7_500, game_id="3/turn"),
        Decision(3, 0, 3, 9_000, game_id="made already"),
    )
    message = translate.view_to_proto(_table(scene, decisions=decisions, decision_round=3), None)
    assert list(message.acting_seats) == [0, 2] and message.to_act == -1
    assert [(d.seat, d.id, d.deadline_unix_ms) for d in message.deadlines] == [
        (0, "3/2", 7_500),
        (2, "3/1", 7_000),
    ]
    assert message.deadline_unix_ms == 0  # the first spelling names one seat's only


def test_the_one_seat_to_act_is_also_named_in_the_first_spelling() -> None:
    scene = Scene(
        seats=(ANN, BOB), acting=frozenset({2}), owed=(c.Deadline(2, "x"),), rounds=Rounds(3, 3)
    )
    decisions = (Decision(3, 2, 4, 8_000, extended=True, game_id="x"),)
    message = translate.view_to_proto(_table(scene, decisions=decisions, decision_round=3), 2)
    assert (message.to_act, message.deadline_unix_ms, message.action_number) == (2, 8_000, 4)
    assert message.deadline_from_time_bank and message.deadlines[0].from_time_bank


def test_every_occupied_seat_shows_its_remaining_time_bank_to_every_viewer() -> None:
    banks = TimeBanks()
    for seat, ms in ((0, 700), (2, 1000), (5, 300)):  # seat 5 is free: not shown
        banks = apply_bank(banks, TimeBankOpened(seat, ms))
    scene = Scene(seats=(ANN, BOB))
    message = translate.view_to_proto(_table(scene, banks=banks), None)
    assert [(s.seat, s.time_bank_ms) for s in message.seats] == [(0, 700), (2, 1000)]
    assert scene.filled == [0, 2]  # the game's own part saw every seat


def test_the_view_carries_the_requested_bots_and_the_bots_that_bought_in() -> None:
    table = _table(
        Scene(),
        requested_bots=(("random", 0.0), ("equity", 0.75)),
        bots=("bot-random-0-t1-s0",),
    )
    message = translate.view_to_proto(table, None)
    assert [(b.policy, b.difficulty) for b in message.requested_bots] == [
        ("random", 0.0),
        ("equity", 0.75),
    ]
    assert list(message.bots_seated) == ["bot-random-0-t1-s0"]


def test_every_event_type_the_stream_holds_travels_in_a_field_of_table_event() -> None:
    games: dict[str, GameTable] = {
        "croupier.poker.v1.": poker.ADAPTER,
        "croupier.highcard.v1.": highcard.ADAPTER,
        "croupier.spit.v1.": spit.ADAPTER,
        "croupier.videopoker.v1.": videopoker.ADAPTER,
    }
    for type_name in codec.registry().type_names():
        if type_name.startswith("croupier.table.v1.") and hasattr(poker_pb2, type_name[18:]):
            continue  # poker's former name of one of its messages
        prefix = next((p for p in games if type_name.startswith(p)), "croupier.table.v1.")
        package = {
            "croupier.poker.v1.": poker_pb2,
            "croupier.highcard.v1.": highcard_pb2,
            "croupier.spit.v1.": spit_events_pb2,
            "croupier.videopoker.v1.": videopoker_events_pb2,
        }.get(prefix, events_pb2)
        message = getattr(package, type_name.rpartition(".")[2])()
        game = games.get(prefix, poker.ADAPTER)
        wrapped = translate.message_to_proto("t1", 3, 1000, message, game)
        field_name = wrapped.WhichOneof("event")
        assert field_name is not None, type_name
        if prefix in ("croupier.highcard.v1.", "croupier.spit.v1.", "croupier.videopoker.v1."):
            member = prefix.split(".")[1]  # the game's wrapper: TableEvent.highcard, ...
            assert field_name == member
            assert getattr(wrapped, member).WhichOneof("event") is not None
        else:
            assert getattr(wrapped, field_name).DESCRIPTOR is message.DESCRIPTOR


def test_a_message_table_event_cannot_carry_is_refused_naming_it() -> None:
    with pytest.raises(codec.CodecError, match=r"croupier\.table\.v1\.TableView"):
        translate.event_to_proto("t1", 3, 1000, table_pb2.TableView(), poker.ADAPTER)
