"""The catalog finds each game's table adapter, and poker's adapter translates both ways."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from croupier.poker.v1 import events_pb2 as poker_events_pb2
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import events_pb2, table_pb2
from services.games.highcard import events as highcard_events
from services.games.poker import events as ev
from services.games.poker.moves import InHand, PokerMove, PostBigBlind
from services.shared import errors
from services.table import codec
from services.table.games import poker
from services.table.games.catalog import CATALOG, Catalog
from services.table.games.structural import StructuralCodec

HOLDEM = poker_pb2.VARIANT_TEXAS_HOLDEM


def test_the_catalog_finds_poker_by_name_and_options() -> None:
    assert CATALOG.named("poker") is poker.ADAPTER
    assert CATALOG.named("") is poker.ADAPTER  # streams from before other games
    first_spelling = table_pb2.TableOptions(game=table_pb2.GAME_TEXAS_HOLDEM)
    assert CATALOG.for_options(first_spelling) is poker.ADAPTER
    chosen = table_pb2.TableOptions(poker=poker_pb2.PokerOptions(variant=HOLDEM))
    assert CATALOG.for_options(chosen) is poker.ADAPTER


def test_an_unknown_game_is_refused_with_the_hosted_ones() -> None:
    with pytest.raises(errors.FailedPrecondition, match="does not host 'bridge'"):
        CATALOG.named("bridge")
    only_poker = Catalog([poker.ADAPTER])
    with pytest.raises(ValueError, match="two catalog entries"):
        Catalog([poker.ADAPTER, poker.ADAPTER])
    assert list(only_poker) == [poker.ADAPTER]


def test_poker_options_round_trip_through_the_adapter() -> None:
    options = table_pb2.TableOptions(
        seats=4,
        min_buy_in=50,
        max_buy_in=500,
        poker=poker_pb2.PokerOptions(variant=HOLDEM, small_blind=5, big_blind=10, rake_cap=3),
    )
    adapter = poker.ADAPTER
    config = adapter.config_from_options(options)
    state = adapter.rules.initial_state(config)
    for event in adapter.opening_events(config):
        state = adapter.rules.apply(state, event)  # type: ignore[arg-type]
    back = table_pb2.TableOptions()
    adapter.fill_options(state, back)
    assert (back.seats, back.min_buy_in, back.max_buy_in) == (4, 50, 500)
    assert (back.poker.small_blind, back.poker.big_blind, back.poker.rake_cap) == (5, 10, 3)
    assert adapter.seat_count(state) == 4
    assert adapter.rounds(state).current is None and adapter.rounds(state).last == 0


def test_poker_chip_amounts_beyond_the_ledger_are_refused() -> None:
    options = table_pb2.TableOptions(poker=poker_pb2.PokerOptions(variant=HOLDEM, big_blind=10**17))
    with pytest.raises(errors.InvalidArgument, match="big_blind is"):
        poker.ADAPTER.config_from_options(options)


def test_poker_moves_and_sit_in_options() -> None:
    request = table_pb2.ActRequest(
        hand_number=3, poker=poker_pb2.PokerMove(action=poker_pb2.ACTION_RAISE, amount=40)
    )
    move, pin = poker.ADAPTER.move_from_request(request)
    assert move == PokerMove("raise", 40, ()) and pin == InHand(3)
    assert poker.ADAPTER.sit_in_option(table_pb2.SitInRequest(post_big_blind=True)) == (
        PostBigBlind()
    )
    assert poker.ADAPTER.sit_in_option(table_pb2.SitInRequest()) is None


def test_poker_events_travel_in_their_own_table_event_fields() -> None:
    events = poker.ADAPTER.events
    seated = ev.PlayerSeated(seat=1, player="ann", stack=100)
    message = events.to_message(seated)
    assert events.from_message(message) == seated
    assert events.from_message(events_pb2.BuyInPosted(transfer_key="k")) is None
    wrapped = events_pb2.TableEvent()
    events.table_event(message, wrapped)
    assert wrapped.WhichOneof("event") == "player_seated"
    assert poker_events_pb2.PlayerSeated in events.message_types()
    assert poker.ADAPTER.seating(seated).player == "ann"  # type: ignore[union-attr]


def test_a_structural_codec_needs_every_message_and_the_games_wrapper() -> None:
    with pytest.raises(codec.CodecError, match="has no message RoundStarted"):
        StructuralCodec(highcard_events.EVENT_TYPES, poker_events_pb2, "poker")
    with pytest.raises(codec.CodecError, match="TableEvent has no member 'nosuchgame'"):
        StructuralCodec({}, poker_events_pb2, "nosuchgame")


# What the shell may import of the games: the contract and the shared pure helpers.
SHARED_GAME_MODULES = {
    "services.games.contract",
    "services.games.errors",
    "services.games.ranking",
    "services.games.timebank",
    "services.games.state_codec",
    "services.games.cardtext",
    "services.games.cards",
}
# The shell's own modules under services/table/games/: the interface, the catalog, the codec.
SHELL_GAME_MODULES = {
    "services.table.games.adapter",
    "services.table.games.catalog",
    "services.table.games.structural",
}


def test_the_table_shell_names_no_game() -> None:
    """Outside services/table/games/, the table service imports only the contract and the
    games' shared helpers, and of its games folder only the interface and the catalog: a
    game is added without touching the shell. (A game's own extra gRPC service, such as
    video poker's `videopoker_servicer.py`, is the game's, not the shell's.)"""
    root = Path(__file__).resolve().parents[3]
    offending = []
    shell = [
        path
        for path in sorted((root / "services" / "table").glob("*.py"))
        if path.name == "servicer.py" or not path.name.endswith("_servicer.py")
    ]
    for path in shell:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                game = name.startswith("services.games.") and not any(
                    name == m or name.startswith(f"{m}.") for m in SHARED_GAME_MODULES
                )
                adapter = name.startswith("services.table.games.") and not any(
                    name == m or name.startswith(f"{m}.") for m in SHELL_GAME_MODULES
                )
                if (game or adapter) and name != "services.games":
                    offending.append(f"{path.name}: {name}")
    assert not offending, offending
