"""A full hold'em hand over real gRPC with real Redis, dealer and ledger."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from croupier.table.v1 import events_pb2, table_pb2
from services.client import cli
from services.shared import auth
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import KEY, Platform, act, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events

A = table_pb2


def test_three_handed_hand_plays_to_showdown_and_settles_rake_in_the_ledger(
    platform: Platform, tmp_path: Path
) -> None:
    table_id = create_table(
        platform, seats=3, small_blind=5, big_blind=10, rake_basis_points=500, rake_cap=3
    )
    # Dealt one at a time from the left of the button (seat 0): seat 1, seat 2, seat 0;
    # then burn + flop, burn + turn, burn + river.
    platform.decks[f"{table_id}.hand-1"] = [
        "Ah",
        "2c",
        "Kd",  # first card: seats 1, 2, 0
        "As",
        "7d",
        "Kc",  # second card
        "3h",
        "Ac",
        "9s",
        "4d",  # burn, flop
        "5h",
        "Ks",  # burn, turn
        "6h",
        "2d",  # burn, river
    ]
    house = platform.table("house", auth.Role.ADMIN)
    stubs = {}
    for seat_no, player in ((0, "carol"), (1, "alice"), (2, "bob")):
        stubs[seat_no] = seat(platform, table_id, player, seat_no, 500)
    # The hand starts once two players sit in: carol (seat 0) and alice (seat 1) are dealt in,
    # bob joins during hand 1 and waits for hand 2.
    view = view_of(house, table_id)
    assert view.hand_number == 1 and view.to_act == 0
    watcher = stubs[2].WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
    act(stubs[0], table_id, 1, A.ACTION_RAISE, amount=30)  # carol (button, small blind)
    act(stubs[1], table_id, 1, A.ACTION_CALL)  # alice
    for street in ("flop", "turn", "river"):
        assert view_of(house, table_id).phase == street
        act(stubs[1], table_id, 1, A.ACTION_CHECK)
        act(stubs[0], table_id, 1, A.ACTION_CHECK)
    # Showdown: alice (first left of the button, nobody bet on the river) shows first.
    own = view_of(stubs[1], table_id)
    assert {a.action for a in own.legal_actions} >= {A.ACTION_SHOW, A.ACTION_MUCK}
    act(stubs[1], table_id, 1, A.ACTION_SHOW)  # aces full
    act(stubs[0], table_id, 1, A.ACTION_MUCK)
    history = house.GetHandHistory(table_pb2.GetHandHistoryRequest(table_id=table_id))
    assert history.hand_number == 1
    assert "seat 1 (alice) wins 57 from the main pot" in history.text
    assert "Rake 3 from the main pot" in history.text
    result = history.text.split("*** RESULT ***")[1]
    assert "seat 1 (alice): 527" in result and "seat 0 (carol): 470" in result
    # Chips: the table's escrow holds every stack; the rake went to the house.
    assert platform.balance(f"table:{table_id}:CHIP") == 1500 - 3
    assert platform.balance("house:rake:CHIP") >= 3
    assert platform.balance("player:carol:CHIP") == 0
    # The shuffle's commitment came first and its reveal after the hand.
    kinds = []
    for message in watcher:
        kind = message.event.WhichOneof("event") if message.HasField("event") else "view"
        kinds.append(kind)
        if kind == "shuffle_revealed":
            reveal = json.loads(message.event.shuffle_revealed.reveal_json)
            # (the seed stays with auditors: the table's default keeps unshown hands private)
            assert reveal["commitment_hex"] and reveal["positions_root_hex"]
            assert "revealed_seed_hex" not in reveal
            break
    watcher.cancel()
    assert kinds[0] == "view"
    assert "hand_ended" in kinds and "rake_settled" in kinds
    # The same history through `croupier history TABLE HAND`, saved to files.
    token = auth.issue_token(KEY, "house", auth.Role.ADMIN, 60)
    out = tmp_path / "hand1"
    target = f"127.0.0.1:{platform.port}"
    invoked = CliRunner().invoke(
        cli.app,
        ["history", table_id, "1", "--target", target, "--token", token, "--out", str(out)],
    )
    assert invoked.exit_code == 0, invoked.output
    assert "wins 57" in out.with_suffix(".txt").read_text()
    assert 'variant = "NT"' in out.with_suffix(".phh").read_text()


def test_the_recorded_shuffle_reveal_passes_croupier_verify(
    platform: Platform, tmp_path: Path, redis_url: str
) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    act(alice, table_id, 1, A.ACTION_FOLD)  # hand 1 ends; its shuffle is closed and revealed

    def reveals() -> list[events_pb2.ShuffleRevealed]:
        stored = stored_events(redis_url, table_id)
        return [e for e in stored if isinstance(e, events_pb2.ShuffleRevealed) and e.hand == 1]

    # (the answer to the fold comes once it is recorded; the close follows from it)
    wait_until(lambda: bool(reveals()), 20, "hand 1's shuffle revealed")
    reveal = reveals()[0]
    record = tmp_path / "hand1.json"
    record.write_text(reveal.reveal_json)
    verified = CliRunner().invoke(cli.app, ["verify", str(record)])
    assert verified.exit_code == 0, verified.output
