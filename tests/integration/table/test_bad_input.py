"""Every bad input of the issue maps to its status code, says why, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    seat,
    view_of,
)

# A heads-up table: its id, then the stubs of the players in seats 0 and 1.
HeadsUp = tuple[str, table_pb2_grpc.TableServiceStub, table_pb2_grpc.TableServiceStub]
# A spit table at the draw: its id, the stub of the player to act, the view then.
AtTheDraw = tuple[str, table_pb2_grpc.TableServiceStub, table_pb2.TableView]


@pytest.fixture
def holdem(platform: Platform) -> HeadsUp:
    """Heads-up hold'em, hand 1 dealt: alice (seat 0, button/small blind) is to act."""
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    return table_id, alice, bob


def rejected(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def test_acting_out_of_turn_is_failed_precondition_naming_whose_turn(holdem: HeadsUp) -> None:
    table_id, alice, bob = holdem
    before = view_of(alice, table_id)
    assert before.to_act == 0
    error = rejected(lambda: act(bob, table_id, 1, table_pb2.ACTION_CHECK))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "seat 0's turn" in (error.details() or "")
    assert view_of(alice, table_id).version == before.version


def test_raise_outside_the_legal_range_is_invalid_argument_with_the_range(holdem: HeadsUp) -> None:
    table_id, alice, _ = holdem
    before = view_of(alice, table_id)
    error = rejected(lambda: act(alice, table_id, 1, table_pb2.ACTION_RAISE, amount=3))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "between 4 and 200" in (error.details() or "")
    assert view_of(alice, table_id).version == before.version


def test_unknown_table_is_not_found(platform: Platform) -> None:
    stub = platform.table("alice")
    error = rejected(lambda: view_of(stub, "tnosuchtable"))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    error = rejected(lambda: act(stub, "tnosuchtable", 1, table_pb2.ACTION_CHECK))
    assert error.code() == grpc.StatusCode.NOT_FOUND


def test_unknown_hand_is_not_found(holdem: HeadsUp) -> None:
    table_id, alice, _ = holdem
    before = view_of(alice, table_id)
    error = rejected(lambda: act(alice, table_id, 7, table_pb2.ACTION_CALL))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "hand 7" in (error.details() or "")
    assert view_of(alice, table_id).version == before.version


def test_stale_expected_version_is_aborted_with_the_current_version(holdem: HeadsUp) -> None:
    table_id, alice, _ = holdem
    before = view_of(alice, table_id)
    error = rejected(
        lambda: act(alice, table_id, 1, table_pb2.ACTION_CALL, expected_version=before.version - 1)
    )
    assert error.code() == grpc.StatusCode.ABORTED
    assert f"version {before.version}" in (error.details() or "")
    assert view_of(alice, table_id).version == before.version
    act(alice, table_id, 1, table_pb2.ACTION_CALL, expected_version=before.version)
    assert view_of(alice, table_id).version > before.version


def test_acting_for_another_players_seat_is_permission_denied(holdem: HeadsUp) -> None:
    table_id, alice, bob = holdem
    before = view_of(alice, table_id)
    request = table_pb2.ActRequest(
        table_id=table_id,
        hand_number=1,
        action=table_pb2.ACTION_CALL,
        seat=0,
        idempotency_key="bob-acts-for-alice",
    )
    error = rejected(lambda: bob.Act(request))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert view_of(alice, table_id).version == before.version


@pytest.fixture
def spit(platform: Platform) -> AtTheDraw:
    """Spit in the Ocean, draw limit 2, pinned deck; both players checked to the draw."""
    table_id = create_table(
        platform,
        game=table_pb2.GAME_SPIT_IN_THE_OCEAN,
        structure=table_pb2.STRUCTURE_FIXED_LIMIT,
        seats=2,
        small_blind=0,
        big_blind=0,
        ante=1,
        draw_limit=2,
    )
    # Four cards each, one at a time from the left of the button (seat 1 first), then the spit.
    platform.decks[f"{table_id}.hand-1"] = [
        "2c",
        "As",
        "3c",
        "Ks",
        "4c",
        "Qs",
        "5c",
        "Js",
        "9d",
        *FILLER,
    ]
    alice = seat(platform, table_id, "alice", 0, 100)
    bob = seat(platform, table_id, "bob", 1, 100)
    stubs = {0: alice, 1: bob}
    for _ in range(2):
        current = view_of(alice, table_id)
        act(stubs[current.to_act], table_id, 1, table_pb2.ACTION_CHECK)
    current = view_of(alice, table_id)
    assert current.phase == "draw"
    return table_id, stubs[current.to_act], current


FILLER = ["6h", "7h", "8h", "9h", "Th", "Jh", "Qh", "Kh", "Ah", "2d", "3d", "4d", "5d", "6d"]


def test_discarding_a_card_not_held_is_invalid_argument_naming_it(spit: AtTheDraw) -> None:
    table_id, drawer, before = spit
    error = rejected(lambda: act(drawer, table_id, 1, table_pb2.ACTION_DISCARD, cards=["7d"]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "7d" in (error.details() or "")
    assert view_of(drawer, table_id).version == before.version


def test_discarding_the_spit_card_is_invalid_argument(spit: AtTheDraw) -> None:
    table_id, drawer, before = spit
    error = rejected(lambda: act(drawer, table_id, 1, table_pb2.ACTION_DISCARD, cards=["9d"]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "spit card 9d" in (error.details() or "")
    assert view_of(drawer, table_id).version == before.version


def test_discarding_over_the_draw_limit_is_invalid_argument_naming_the_limit(
    spit: AtTheDraw,
) -> None:
    table_id, drawer, before = spit
    own = view_of(drawer, table_id)
    mine = [c for s in own.seats if s.seat == own.viewer_seat for c in s.cards]
    error = rejected(lambda: act(drawer, table_id, 1, table_pb2.ACTION_DISCARD, cards=mine[:3]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "draw limit is 2" in (error.details() or "")
    assert view_of(drawer, table_id).version == before.version


def test_a_table_id_too_long_for_its_bots_ledger_accounts_is_invalid_argument(
    platform: Platform,
) -> None:
    # A requested bot's player id names the table (bot-<policy>-<difficulty %>-<table>-s<i>)
    # and is its ledger account's name, at most 64 characters: a longer table id would
    # make a table whose bots can never sit down.
    from croupier.ledger.v1 import ledger_pb2
    from services.workers.bot_seats import seated_bot_id

    too_long = "t" * 41
    error = rejected(lambda: create_table(platform, too_long, bots=[("equity", 1.0)]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 40 characters" in (error.details() or "") and "41" in (error.details() or "")
    house = platform.table("house")
    missing = rejected(lambda: view_of(house, too_long))
    assert missing.code() == grpc.StatusCode.NOT_FOUND  # nothing was created
    unopened = rejected(
        lambda: platform.ledger().GetBalance(
            ledger_pb2.GetBalanceRequest(account_id=f"table:{too_long}:CHIP")
        )
    )
    assert unopened.code() == grpc.StatusCode.NOT_FOUND

    longest = create_table(platform, "t" * 40, seats=10, bots=[("equity", 1.0)])
    assert len(seated_bot_id(longest, 9, "equity", 1.0)) <= 64
    assert view_of(house, longest).requested_bots[0].policy == "equity"
