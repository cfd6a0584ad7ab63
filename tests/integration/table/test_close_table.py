"""CloseTable over real gRPC with the real dealer, ledger and Redis: a table closed mid-round
plays the round out, pays every stack back through the ledger, takes no one new and deals
no more; only its creator, an admin or a service closes it."""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from croupier.ledger.v1 import ledger_pb2
from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.spit_player import Reaction, SpitPlayer
from services.shared import auth
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    new_table_id,
    passive_action,
    seat,
    view_of,
    wait_for_turn,
)
from tests.integration.table.test_buy_in_recovery import crashed_join, held, join
from tests.integration.table.test_spit_table import create_spit_table, phase, ready
from tests.integration.table.test_spit_table import wait_for as spit_wait
from tests.integration.table.test_videopoker_table import act as vp_act
from tests.integration.table.test_videopoker_table import (
    deal,
    ended,
    hold,
    holding,
    machine,
    wait_for,
)

pytestmark = pytest.mark.parametrize("platform", ["aio", "sync"], indirect=True)

CLOSED = table_pb2.TABLE_STATUS_CLOSED
CLOSING = table_pb2.TABLE_STATUS_CLOSING


def close(stub: table_pb2_grpc.TableServiceStub, table_id: str, key: str = "close") -> int:
    request = table_pb2.CloseTableRequest(table_id=table_id, idempotency_key=key)
    return stub.CloseTable(request, timeout=30).status


def refusal(call: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        assert callable(call)
        call()
    return refused.value


def test_a_table_closed_mid_hand_plays_it_out_and_pays_every_stack_back(
    platform: Platform,
) -> None:
    table_id = new_table_id()
    carol = platform.table("carol")  # a player creates the table: she may close it
    carol.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key="create",
            options=table_pb2.TableOptions(
                game=table_pb2.GAME_TEXAS_HOLDEM,
                structure=table_pb2.STRUCTURE_NO_LIMIT,
                seats=3,
                small_blind=1,
                big_blind=2,
                min_buy_in=20,
                max_buy_in=1000,
            ),
        )
    )
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 300)
    view = wait_for_turn(alice, table_id)
    assert view.hand_in_progress and view.hand_number == 1
    assert view.status == table_pb2.TABLE_STATUS_OPEN

    denied = refusal(lambda: close(platform.table("dave"), table_id))
    assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "carol" in (denied.details() or "")
    assert view_of(alice, table_id).status == table_pb2.TABLE_STATUS_OPEN

    assert close(carol, table_id) == CLOSING
    assert close(carol, table_id) == CLOSING  # a retry closes once
    view = view_of(alice, table_id)
    assert view.status == CLOSING and view.hand_in_progress  # the hand goes on

    platform.fund("erin", 100)
    erin = platform.table("erin")
    join = table_pb2.JoinTableRequest(table_id=table_id, seat=2, buy_in=100, idempotency_key="j")
    refused = refusal(lambda: erin.JoinTable(join))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "closing" in (refused.details() or "")
    held = platform.ledger().GetBalance(ledger_pb2.GetBalanceRequest(account_id="player:erin:CHIP"))
    assert (held.balance.balance, held.balance.held) == (100, 0)  # the hold was voided
    platform.fund("alice", 50)
    top_up = table_pb2.TopUpRequest(table_id=table_id, amount=50, idempotency_key="t")
    assert refusal(lambda: alice.TopUp(top_up)).code() == grpc.StatusCode.FAILED_PRECONDITION
    assert platform.balance("player:alice:CHIP") == 50

    players = {0: alice, 1: platform.table("bob")}
    deadline = time.monotonic() + 60
    while (view := view_of(alice, table_id)).hand_in_progress:
        assert time.monotonic() < deadline, view
        mine = view_of(players[view.to_act], table_id) if view.to_act >= 0 else None
        if mine is None or mine.to_act != view.to_act or not mine.legal_actions:
            time.sleep(0.01)  # (dealing)
            continue
        action, amount, cards = passive_action(mine)
        act(players[view.to_act], table_id, mine.hand_number, action, amount, cards)

    wait_until(
        lambda: view_of(alice, table_id).status == CLOSED, 60, "the table closed after the hand"
    )
    view = view_of(alice, table_id)
    assert view.hand_number == 1 and not view.hand_in_progress and not view.seats
    # Every chip bought in is back in its player's account (no rake at this table).
    alice_now = platform.balance("player:alice:CHIP") - 50
    assert alice_now + platform.balance("player:bob:CHIP") == 500
    assert platform.balance(f"table:{table_id}:CHIP") == 0

    again = table_pb2.JoinTableRequest(table_id=table_id, seat=0, buy_in=100, idempotency_key="k")
    late = refusal(lambda: erin.JoinTable(again))
    assert late.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "closed" in (late.details() or "")
    assert platform.balance("player:erin:CHIP") == 100
    assert close(platform.table("house", auth.Role.ADMIN), table_id, "again") == CLOSED
    listed = carol.ListTables(table_pb2.ListTablesRequest())
    assert {t.table_id: t.status for t in listed.tables}[table_id] == CLOSED


def test_a_video_poker_machine_closed_mid_round_finishes_it_and_pays_the_credits_back(
    platform: Platform,
) -> None:
    table_id = machine(platform, "jacks-9-6")
    platform.decks[f"{table_id}.hand-1.deal"] = ["Ah", "Kh", "Qh", "Jh", "Th"]
    alice = seat(platform, table_id, "alice", 0, 1000)
    vp_act(alice, table_id, "deal-1", deal(3, 1))
    wait_for(alice, table_id, holding(1))
    admin = platform.table("house", auth.Role.ADMIN)
    assert close(admin, table_id) == CLOSING
    vp_act(alice, table_id, "hold-1", hold(0, 1, 2, 3, 4))
    wait_until(
        lambda: view_of(alice, table_id).status == CLOSED, 60, "the machine closed after its round"
    )
    view = view_of(alice, table_id)
    assert not view.seats and view.videopoker.last.number == 1
    assert ended(1)(view) or not view.videopoker.HasField("round")
    # 1000 credits, a bet of 3 (3 lines of 1 coin), a royal flush on each line pays 250.
    assert platform.balance("player:alice:CHIP") == 1000 - 3 + 3 * 250
    assert platform.balance(f"table:{table_id}:CHIP") == 0
    refused = refusal(lambda: vp_act(alice, table_id, "deal-2", deal(3, 1)))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_spit_table_closed_mid_game_plays_the_game_out_without_a_concession(
    platform: Platform,
) -> None:
    table_id = create_spit_table(platform, stake=10, slap_ms=2_000, stall_ms=2_000)
    names = ("ann", "bob")
    stubs = [seat(platform, table_id, name, s, 100) for s, name in enumerate(names)]
    spit_wait(stubs[0], table_id, phase(spit_pb2.PHASE_READY))
    for name, stub in zip(names, stubs, strict=True):
        stub.Act(ready(table_id, f"ready-{name}"))
    spit_wait(stubs[0], table_id, phase(spit_pb2.PHASE_PLAYING))
    assert close(platform.table("house", auth.Role.ADMIN), table_id) == CLOSING
    view = view_of(stubs[0], table_id)
    assert view.hand_in_progress and len(view.seats) == 2  # nobody conceded

    players = [
        SpitPlayer(stub, table_id, name=name, reaction=Reaction(0, 0))
        for name, stub in zip(names, stubs, strict=True)
    ]
    stop = threading.Event()
    threads = [threading.Thread(target=p.play, args=(stop,)) for p in players]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: view_of(stubs[0], table_id).status == CLOSED, 90, "the game played out")
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    view = view_of(stubs[0], table_id)
    assert view.hand_number == 1 and not view.seats
    assert view.spit.result and "conceded" not in view.spit.result
    balances = [platform.balance(f"player:{name}:CHIP") for name in names]
    assert sum(balances) == 200 and balances != [100, 100]  # the stake changed hands
    assert platform.balance(f"table:{table_id}:CHIP") == 0


def test_a_join_whose_hold_was_taken_before_the_close_has_the_hold_voided(
    platform: Platform,
) -> None:
    """A join that reserved its buy-in and then met the close (its first attempt crashed
    after the ledger's Reserve; the retry finds the table closing): refused, and the hold is
    voided, so every chip stays the player's."""
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 200)
    crashed_join(platform, table_id, "alice", "k1", 200)
    assert held(platform, "alice") == (200, 200)
    assert close(platform.table("house", auth.Role.ADMIN), table_id) == CLOSED
    refused = refusal(lambda: join(platform, table_id, "alice", 0, "k1"))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert held(platform, "alice") == (200, 0)
    assert not view_of(platform.table("alice"), table_id).seats
