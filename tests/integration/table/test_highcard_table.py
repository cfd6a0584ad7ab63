"""Heads-up high card through the real table service over loopback gRPC, with the real
dealer, ledger and Redis: a second game on the same shell, added with only its rules package,
its proto package (croupier.highcard.v1), its translation module and its catalog entry.

Create, list, join, play (both seats act at once), watch (each viewer sees only what it may),
view, history, timeouts (the game's default: the card turned), leave (the stack paid out)."""

from __future__ import annotations

import time

from croupier.highcard.v1 import highcard_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from tests.integration.table.conftest import (
    Platform,
    events_in,
    new_table_id,
    seat,
    view_of,
)

TURN = highcard_pb2.HighCardMove(turn=highcard_pb2.Turn())


def create_highcard_table(platform: Platform, ante: int, action_time_ms: int) -> str:
    table_id = new_table_id()
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=table_pb2.TableOptions(
                min_buy_in=50,
                max_buy_in=500,
                action_time_ms=action_time_ms,
                highcard=highcard_pb2.HighCardOptions(ante=ante),
            ),
        )
    )
    return table_id


def wait_for(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    ready: object,
    timeout_s: float = 30.0,
) -> table_pb2.TableView:
    """The first view `ready(view)` accepts (the table deals after the call that made it
    possible has returned), or a failure naming the last view read."""
    deadline = time.monotonic() + timeout_s
    while True:
        view = view_of(stub, table_id)
        if ready(view):  # type: ignore[operator]
            return view
        assert time.monotonic() < deadline, f"no such view in {timeout_s} s: {view}"
        time.sleep(0.01)


def turn(stub: table_pb2_grpc.TableServiceStub, table_id: str, key: str) -> int:
    request = table_pb2.ActRequest(table_id=table_id, idempotency_key=key, highcard=TURN)
    return stub.Act(request).version


def both_to_turn(round_: int) -> object:
    return lambda v: (
        v.hand_number == round_ and v.hand_in_progress and list(v.acting_seats) == [0, 1]
    )


def test_heads_up_high_card_plays_end_to_end_through_the_table_service(
    platform: Platform,
) -> None:
    table_id = create_highcard_table(platform, ante=5, action_time_ms=200)
    platform.decks[f"{table_id}.hand-1"] = ["Ks", "7d"]  # seat 0's card, then seat 1's
    house = platform.table("house", auth.Role.ADMIN)
    listed = house.ListTables(table_pb2.ListTablesRequest()).tables
    summary = next(t for t in listed if t.table_id == table_id)
    assert summary.options.WhichOneof("game_options") == "highcard"
    assert summary.options.highcard.ante == 5 and summary.options.seats == 2

    alice = seat(platform, table_id, "alice", 0, 100)
    bob_watch = platform.table("bob").WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
    assert next(bob_watch).HasField("view")
    bob = seat(platform, table_id, "bob", 1, 100)

    # Both seats may turn at once: two open decisions, one deadline each.
    view = wait_for(alice, table_id, both_to_turn(1))
    assert view.to_act == -1 and len(view.deadlines) == 2
    assert {d.seat for d in view.deadlines} == {0, 1}
    assert [s.card for s in view.highcard.seats] == ["Ks", "??"] and view.highcard.can_turn
    assert view.highcard.pot == 10 and [s.stack for s in view.seats] == [95, 95]
    assert [s.card for s in view_of(bob, table_id).highcard.seats] == ["??", "7d"]

    turn(alice, table_id, "turn-1")
    turn(alice, table_id, "turn-1")  # a retry: acts once
    assert [s.card for s in view_of(bob, table_id).highcard.seats] == ["Ks", "7d"]
    turn(bob, table_id, "turn-1")
    view = wait_for(house, table_id, lambda v: v.hand_number == 2 or not v.hand_in_progress)
    assert {s.player_id: s.stack for s in view.seats}["alice"] >= 100  # won 10, anted 5 again

    # Bob's stream: his own card, alice's hidden until she turned it, then the result.
    seen: list[str] = []
    while "round_won" not in seen:
        for event in events_in(next(bob_watch)):
            if event.WhichOneof("event") == "highcard":
                kind = event.highcard.WhichOneof("event") or ""
                seen.append(kind)
                if kind == "cards_dealt" and event.highcard.cards_dealt.round == 1:
                    assert list(event.highcard.cards_dealt.cards) == ["??", "7d"]
                if kind == "card_turned" and event.highcard.card_turned.seat == 0:
                    assert event.highcard.card_turned.card == "Ks"
    bob_watch.cancel()
    assert seen.count("card_turned") == 2 and "deck_committed" in seen

    history = alice.GetHandHistory(table_pb2.GetHandHistoryRequest(table_id=table_id))
    assert history.hand_number == 1 and history.phh == ""
    assert "seat 0 (alice) turns Ks" in history.text and "Dealt to seat 1 (bob): ??" in history.text

    # Round 2: nobody turns; once the deadlines pass the timeout worker (here: the service
    # role) applies the game's default, which turns the card.
    view = wait_for(house, table_id, both_to_turn(2))
    timeouts = platform.table("timeouts", auth.Role.SERVICE)
    time.sleep(max(0.0, (max(d.deadline_unix_ms for d in view.deadlines) / 1000) - time.time()))
    for deadline in view.deadlines:
        applied = timeouts.ApplyTimeout(
            table_pb2.ApplyTimeoutRequest(table_id=table_id, deadline_id=deadline.id)
        )
        assert applied.applied
        again = timeouts.ApplyTimeout(
            table_pb2.ApplyTimeoutRequest(table_id=table_id, deadline_id=deadline.id)
        )
        assert not again.applied  # made already: a no-op
    wait_for(house, table_id, lambda v: v.hand_number >= 3)
    text = house.GetHandHistory(
        table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=2)
    ).text
    assert text.count("(time ran out)") == 2

    # Both leave during round 3: after it, each stack goes back to its ledger account.
    view = wait_for(house, table_id, both_to_turn(3))
    for stub in (alice, bob):
        left = stub.LeaveTable(
            table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye")
        )
        assert not left.left
        turn(stub, table_id, "turn-3")
    view = wait_for(house, table_id, lambda v: not v.seats)
    accounts = platform.balance("player:alice:CHIP") + platform.balance("player:bob:CHIP")
    assert accounts == 200  # every chip back: antes only ever moved between the two
    assert platform.balance(f"table:{table_id}:CHIP") == 0


def test_a_move_of_another_game_is_refused_and_changes_nothing(platform: Platform) -> None:
    table_id = create_highcard_table(platform, ante=1, action_time_ms=0)
    alice = seat(platform, table_id, "alice", 0, 100)
    seat(platform, table_id, "bob", 1, 100)
    before = wait_for(alice, table_id, both_to_turn(1)).version
    poker_move = table_pb2.ActRequest(
        table_id=table_id, idempotency_key="k", action=table_pb2.ACTION_CHECK
    )
    try:
        alice.Act(poker_move)
        raise AssertionError("a poker move was accepted at a high-card table")
    except Exception as exc:  # grpc.RpcError
        assert "plays high-card" in str(exc) and "ActRequest.highcard" in str(exc)
    assert view_of(alice, table_id).version == before
