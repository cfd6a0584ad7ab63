"""Every table option comes back as it was set, from each of GetTableView, ListTables and
WatchTable, in both of poker's spellings (croupier.poker.v1 and table.v1's first one)."""

from __future__ import annotations

import grpc
import pytest

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import events_pb2, table_pb2
from services.shared import auth
from tests.integration.table.conftest import Platform, new_table_id

# Every option set to something other than its default (and other than what the service would
# derive from the rest: small_bet is not the big blind, big_bet not twice the small bet...).
ENVELOPE = {
    "seats": 5,
    "currency": "GOLD",
    "min_buy_in": 40,
    "max_buy_in": 4_000,
    "action_time_ms": 12_000,
    "time_bank_ms": 30_000,
    "time_bank_chunk_ms": 5_000,
    "time_bank_refill_ms": 2_000,
    "time_bank_refill_every_hands": 7,
    "time_bank_cap_ms": 45_000,
    "min_players_to_start": 3,
    # Not the default (auditors): a value the table must keep, not one it fills in.
    "seed_reveal": events_pb2.SEED_REVEAL_HAND_PLAYERS,
}
POKER = poker_pb2.PokerOptions(
    variant=poker_pb2.VARIANT_HOLDEM_HILO,
    structure=poker_pb2.STRUCTURE_FIXED_LIMIT,
    small_blind=2,
    big_blind=4,
    ante=1,
    big_blind_ante=True,
    small_bet=6,
    big_bet=10,
    raise_cap=5,
    capped_heads_up=True,
    rake_basis_points=250,
    rake_cap=9,
    draw_limit=2,
    five_of_a_kind=poker_pb2.FIVE_KIND_BELOW_STRAIGHT_FLUSH,
    first_button=3,
    timeouts_before_sit_out=2,
    odd_chips=poker_pb2.ODD_CHIPS_ALL_TO_FIRST_FROM_BUTTON_LEFT,
)


def _create(platform: Platform, options: table_pb2.TableOptions) -> str:
    table_id = new_table_id()
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id, idempotency_key=f"create-{table_id}", options=options
        )
    )
    return table_id


def _read_back(platform: Platform, table_id: str) -> dict[str, table_pb2.TableOptions]:
    """The table's options as each of the three RPCs reports them."""
    alice = platform.table("alice")
    view = alice.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view.options
    listed = {s.table_id: s.options for s in alice.ListTables(table_pb2.ListTablesRequest()).tables}
    stream = alice.WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
    watched = next(iter(stream)).view.options
    stream.cancel()
    return {"GetTableView": view, "ListTables": listed[table_id], "WatchTable": watched}


def _expected(poker: poker_pb2.PokerOptions) -> table_pb2.TableOptions:
    expected = table_pb2.TableOptions(**ENVELOPE, poker=poker)  # type: ignore[arg-type]
    # The first spelling, filled for poker tables so clients written against it keep working.
    expected.game = poker.variant  # type: ignore[assignment]
    expected.structure = poker.structure  # type: ignore[assignment]
    for name in (
        "small_blind",
        "big_blind",
        "ante",
        "small_bet",
        "big_bet",
        "raise_cap",
        "capped_heads_up",
        "rake_basis_points",
        "rake_cap",
        "draw_limit",
        "first_button",
    ):
        setattr(expected, name, getattr(poker, name))
    expected.five_of_a_kind = poker.five_of_a_kind  # type: ignore[assignment]
    return expected


def test_every_option_set_reads_back_from_every_rpc(platform: Platform) -> None:
    table_id = _create(platform, table_pb2.TableOptions(**ENVELOPE, poker=POKER))  # type: ignore[arg-type]
    for rpc, options in _read_back(platform, table_id).items():
        assert options == _expected(POKER), rpc


def test_the_first_spelling_of_the_options_reads_back_the_same(platform: Platform) -> None:
    first = _expected(POKER)
    first.ClearField("poker")
    # (big_blind_ante, timeouts_before_sit_out and odd_chips exist only in PokerOptions)
    table_id = _create(platform, first)
    plain = poker_pb2.PokerOptions()
    plain.CopyFrom(POKER)
    plain.big_blind_ante = False
    plain.timeouts_before_sit_out = 0
    plain.odd_chips = poker_pb2.ODD_CHIPS_ONE_EACH_FROM_BUTTON_LEFT  # (unset: the default)
    for rpc, options in _read_back(platform, table_id).items():
        assert options == _expected(plain), rpc


def test_both_spellings_may_be_sent_where_they_agree(platform: Platform) -> None:
    table_id = _create(platform, _expected(POKER))
    assert _read_back(platform, table_id)["GetTableView"] == _expected(POKER)


def test_spellings_that_disagree_are_refused_naming_both_fields(platform: Platform) -> None:
    options = _expected(POKER)
    options.small_blind = 3
    with pytest.raises(grpc.RpcError) as refused:
        _create(platform, options)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "options.small_blind (3) disagrees with options.poker.small_blind (2)" in str(
        refused.value.details()
    )


def test_options_naming_no_game_are_refused(platform: Platform) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        _create(platform, table_pb2.TableOptions(seats=6))
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "options.poker.variant must be one of VARIANT_TEXAS_HOLDEM" in str(
        refused.value.details()
    )
