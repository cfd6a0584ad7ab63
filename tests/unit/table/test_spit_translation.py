"""Spit's translation (services/table/games/spit.py) and the client's side of it
(services/bots/spit_wire.py): options, moves, views and every event, through their bytes on
the wire and back, for every variation; bad values get INVALID_ARGUMENT naming them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from croupier.spit.v1 import events_pb2, spit_pb2
from croupier.table.v1 import events_pb2 as table_events_pb2
from croupier.table.v1 import table_pb2
from services.bots import spit_wire
from services.games.spit import RULES, SpitConfig, Variation
from services.games.spit import events as ev
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap
from services.games.spit.reducer import apply
from services.shared import errors
from services.shared.limits import MAX_CHIPS
from services.table.games import spit
from services.table.games.adapter import Rounds
from services.table.games.catalog import CATALOG
from tests.unit.games.spit.simulation import Report, play_game

CONFIGS = {
    "spit": SpitConfig(),
    "four-piles": SpitConfig(piles=4, alternating_colours=True),
    "bicycle": SpitConfig(variation=Variation.BICYCLE),
    "speed": SpitConfig(variation=Variation.SPEED, stake=25),
}


@pytest.fixture(scope="module")
def games() -> dict[str, list[ev.SpitEvent]]:
    return {
        name: play_game(config, 7, Report(), full_checks=False).events
        for name, config in CONFIGS.items()
    }


def test_every_event_type_has_its_message_and_a_wrapper_member() -> None:
    assert set(spit.EVENT_MESSAGES) == set(ev.EVENT_TYPES.values())
    for message in spit.EVENT_MESSAGES.values():
        assert message.DESCRIPTOR.full_name == f"croupier.spit.v1.{message.DESCRIPTOR.name}"
        assert message.DESCRIPTOR.full_name in spit.WRAPPER_FIELDS


def test_every_event_of_every_variation_round_trips_through_bytes(
    games: dict[str, list[ev.SpitEvent]],
) -> None:
    seen: set[type[ev.SpitEvent]] = set()
    for events in games.values():
        for event in events:
            for viewer in (None, 0, 1):
                shown = RULES.redact(event, viewer)
                assert shown is not None
                message = spit.event_to_message(shown)
                stored = type(message).FromString(message.SerializeToString())
                assert spit.event_from_message(stored) == shown
                wire = events_pb2.SpitEvent.FromString(spit.wrapped(message).SerializeToString())
                assert spit.unwrapped(wire) == message
                assert spit_wire.event_from_proto(wire) == shown
            seen.add(type(event))
    # Every kind a game can produce without seats leaving or chips added mid-game.
    assert seen >= set(ev.EVENT_TYPES.values()) - {
        ev.PlayerLeft,
        ev.PlayerSatOut,
        ev.PlayerSatIn,
        ev.ChipsAdded,
        ev.Stalled,
    }


@pytest.mark.parametrize(
    "event",
    [
        ev.PlayerLeft(1, "bob", 90),
        ev.PlayerSatOut(0),
        ev.PlayerSatIn(0),
        ev.ChipsAdded(1, 40),
        ev.Stalled(0),
        ev.Spat(None, 1, "Kd"),
        ev.Slapped(1, None, 0, timed_out=True),
        ev.DealEnded(4, "cleared", (None, 0), (0, 31)),
        ev.GameEnded(2, None, "void: dealer down", (5, 5), (100, 100)),
        ev.DealOver(3, "stuck", None),
    ],
)
def test_absent_values_and_rare_events_round_trip(event: ev.SpitEvent) -> None:
    message = spit.event_to_message(event)
    assert spit.event_from_message(type(message).FromString(message.SerializeToString())) == event


def test_a_message_of_another_game_is_not_a_spit_event() -> None:
    assert spit.event_from_message(spit_pb2.SpitOptions()) is None
    with pytest.raises(errors.InvalidArgument, match="carries no event"):
        spit.unwrapped(events_pb2.SpitEvent())


def _options(
    seats: int = 0, min_buy_in: int = 0, max_buy_in: int = 0, **spit_options: Any
) -> table_pb2.TableOptions:
    return table_pb2.TableOptions(
        seats=seats,
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
        spit=spit_pb2.SpitOptions(**spit_options),
    )


def test_default_options_are_the_documented_defaults() -> None:
    config = spit.config_from_options(_options())
    assert config == SpitConfig(min_buy_in=1, max_buy_in=MAX_CHIPS)
    back = table_pb2.TableOptions()
    spit.ADAPTER.fill_options(RULES.initial_state(config), back)
    assert spit.config_from_options(back) == config
    assert (back.seats, back.min_buy_in, back.max_buy_in) == (2, 1, MAX_CHIPS)


def test_every_option_set_to_a_non_default_value_reads_back() -> None:
    options = _options(
        seats=2,
        min_buy_in=40,
        max_buy_in=400,
        variation=spit_pb2.VARIATION_SPIT,
        piles=4,
        alternating_colours=True,
        stake=30,
        slap_ms=2_500,
        ready_ms=9_000,
        stall_ms=0,
    )
    config = spit.config_from_options(options)
    assert config == SpitConfig(
        piles=4,
        alternating_colours=True,
        stake=30,
        slap_ms=2_500,
        ready_ms=9_000,
        stall_ms=0,
        min_buy_in=40,
        max_buy_in=400,
    )
    back = table_pb2.TableOptions()
    spit.ADAPTER.fill_options(spit.ADAPTER.initial_state(options), back)
    assert back == options
    speed = spit.config_from_options(_options(variation=spit_pb2.VARIATION_SPEED, stake=5))
    assert speed.variation is Variation.SPEED and speed.stall_ms == SpitConfig().stall_ms
    assert speed.min_buy_in == 5  # the least buy-in covers the stake


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (
            _options(variation=spit_pb2.Variation.ValueType(9)),
            "VARIATION_SPIT, VARIATION_BICYCLE, VARIATION_SPEED",
        ),
        (_options(piles=3), "piles must be 4 or 5"),
        (_options(piles=4, variation=spit_pb2.VARIATION_SPEED), "four piles"),
        (_options(stake=-1), "options.spit.stake must not be negative"),
        (_options(slap_ms=-5), "options.spit.slap_ms must not be negative"),
        (_options(stall_ms=-1), "options.spit.stall_ms must not be negative"),
        (_options(seats=3), "a Spit table has 2 seats, not 3"),
        (_options(min_buy_in=50, max_buy_in=10), "buy-in range"),
        (_options(stake=MAX_CHIPS + 1), "chip amounts are at most"),
    ],
)
def test_bad_options_are_invalid_argument_naming_the_option(
    options: table_pb2.TableOptions, words: str
) -> None:
    with pytest.raises(errors.InvalidArgument, match=words):
        spit.config_from_options(options)


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        (Ready(), None),
        (Ready(), Expected(deal=3)),
        (PlayCard(2, 1, "Td"), Expected(deal=1, top="9c")),
        (PlayCard(0, 0), Expected(top="As")),
        (PlayCard(4, 1), None),
        (MoveToSpace(3, 0), Expected(deal=2)),
        (Slap(1), Expected(deal=5)),
        (Slap(0), Expected()),
    ],
)
def test_moves_and_preconditions_round_trip(move: object, expected: Expected | None) -> None:
    sent = spit_wire.move_to_proto(move, expected)  # type: ignore[arg-type]
    assert sent == spit.move_to_proto(move, expected)  # type: ignore[arg-type]
    wire = spit_pb2.SpitMove.FromString(sent.SerializeToString())
    assert spit.move_from_proto(wire) == (move, expected)
    assert spit_wire.move_from_proto(wire) == move


@pytest.mark.parametrize(
    ("move", "words"),
    [
        (spit_pb2.SpitMove(), "set one move: ready, play_card, move_to_space or slap"),
        (
            spit_pb2.SpitMove(play_card=spit_pb2.PlayCard(source=0, target=1, card="1x")),
            "spit.play_card.card '1x' is not a card",
        ),
        (
            spit_pb2.SpitMove(ready=spit_pb2.Ready(), expected=spit_pb2.Expected(top="??")),
            "spit.expected.top '\\?\\?' is not a card",
        ),
    ],
)
def test_malformed_moves_are_invalid_argument(move: spit_pb2.SpitMove, words: str) -> None:
    with pytest.raises(errors.InvalidArgument, match=words):
        spit.move_from_proto(move)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_views_of_every_moment_read_back_on_the_clients_side(
    name: str, games: dict[str, list[ev.SpitEvent]]
) -> None:
    config = CONFIGS[name]
    state = RULES.initial_state(config)
    for index, event in enumerate(games[name]):
        state = apply(state, event)
        if index % 7:
            continue
        for viewer in (None, 0, 1):
            view = RULES.view_for(state, viewer)
            wire = spit_pb2.SpitView.FromString(spit.view_to_proto(view).SerializeToString())
            assert spit_wire.view_from_proto(wire, viewer) == view
            assert spit_wire.config_of(wire) == SpitConfig(
                variation=config.variation,
                piles=config.piles,
                alternating_colours=config.alternating_colours,
                stake=config.stake,
            )


# ---------------------------------------------------------------- the table adapter


def test_the_catalog_finds_spit_by_name_and_options() -> None:
    assert CATALOG.named("spit") is spit.ADAPTER
    assert CATALOG.for_options(_options()) is spit.ADAPTER
    assert spit.ADAPTER.seat_count(RULES.initial_state(SpitConfig())) == 2


def test_an_act_carries_the_move_in_spit_and_nothing_of_poker() -> None:
    adapter = spit.ADAPTER
    move = spit_pb2.SpitMove(
        play_card=spit_pb2.PlayCard(source=1, target=0, card="9h"),
        expected=spit_pb2.Expected(deal=2, top="8c"),
    )
    request = table_pb2.ActRequest(table_id="t", idempotency_key="k", spit=move)
    assert adapter.move_from_request(request) == (PlayCard(1, 0, "9h"), Expected(2, "8c"))
    with pytest.raises(errors.InvalidArgument, match="this is a Spit table: send the move"):
        adapter.move_from_request(table_pb2.ActRequest(action=table_pb2.ACTION_FOLD))
    with pytest.raises(errors.InvalidArgument, match="action, amount and cards are poker's"):
        adapter.move_from_request(table_pb2.ActRequest(spit=move, amount=3))
    with pytest.raises(errors.InvalidArgument, match=r"expected_version or with spit\.expected"):
        adapter.move_from_request(table_pb2.ActRequest(spit=move, expected_version=7))
    with pytest.raises(errors.InvalidArgument, match="post_big_blind is poker's"):
        adapter.sit_in_option(table_pb2.SitInRequest(post_big_blind=True))
    assert adapter.sit_in_option(table_pb2.SitInRequest()) is None


def test_rounds_seating_and_histories_follow_the_games(
    games: dict[str, list[ev.SpitEvent]],
) -> None:
    adapter = spit.ADAPTER
    state = RULES.initial_state(CONFIGS["spit"])
    assert adapter.rounds(state) == Rounds(None, 0)
    seats: dict[int, str] = {}
    game_events: list[object] = []
    for event in games["spit"]:
        state = apply(state, event)
        seating = adapter.seating(event)
        if seating is not None:
            seats[seating.seat] = seating.player
        bounds = adapter.round_of(event)
        if bounds == (1, True):
            assert adapter.rounds(state) == Rounds(1, 1)
        if bounds is not None or game_events:
            game_events.append(event)
    assert seats == {0: "ann", 1: "bob"}
    assert adapter.rounds(state) == Rounds(None, 1)
    assert adapter.round_of(game_events[0]) == (1, True)
    machine, text = adapter.history(state, seats, game_events, 0, False, "t9")
    assert machine == ""
    assert text.startswith("Spit at table t9: seat 0 ann, seat 1 bob\n")
    assert "game 1 starts with deal 1" in text and "game 1 ends" in text
    assert "??" in text  # face-down cards stay face down for a player
    _, full = adapter.history(state, seats, game_events, None, True, "t9")
    assert "??" not in full


def test_a_watcher_gets_spit_events_inside_table_event_spit(
    games: dict[str, list[ev.SpitEvent]],
) -> None:
    codec = spit.ADAPTER.events
    assert set(codec.message_types()) == set(spit.EVENT_MESSAGES.values())
    event = games["spit"][-1]
    message = codec.to_message(event)
    wrapper = table_events_pb2.TableEvent(table_id="t", version=9)
    codec.table_event(message, wrapper)
    assert wrapper.WhichOneof("event") == "spit"
    assert spit_wire.event_from_proto(wrapper.spit) == event
    assert codec.from_message(message) == event
    with pytest.raises(ValueError, match="is not one of Spit's events"):
        codec.to_message(object())


def test_every_shuffle_name_fits_in_a_dealer_shuffle_id(
    games: dict[str, list[ev.SpitEvent]],
) -> None:
    # The shell names a game's shuffle "<table>.hand-<round>.<name>"; the dealer takes
    # letters, digits, '_', '-' and '.' only.
    names = {
        e.name for events in games.values() for e in events if isinstance(e, ev.ShuffleCommitted)
    }
    assert {"deck", "seat-0", "seat-1"} <= names
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", name) for name in names), names
