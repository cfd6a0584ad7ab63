"""A table that empties, or stays idle between hands, leaves no shuffle open: the shuffles it
announced ahead (players' commitments inside) are withdrawn (ShuffleWithdrawn), closed at the
dealer and revealed (ShuffleRevealed, unused), even when the instance that last wrote the
table was stopped; a hand dealt afterwards announces a fresh shuffle under a new id
(`{table}.hand-{n}_r2`) and deals from it, never from a withdrawn one.

Real Redis, dealer, ledger and table service over loopback, on both runtimes."""

from __future__ import annotations

import pytest

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import KEY, Platform, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events
from tests.integration.table.test_verify_received import fold, play_hand

pytestmark = pytest.mark.parametrize("platform", ["aio", "sync"], indirect=True)
IDLE_S = 3.0
GRACE_S = 0.5
Stubs = dict[str, table_pb2_grpc.TableServiceStub]


def _announced(redis_url: str, table_id: str) -> dict[str, str]:
    return {
        e.shuffle_id: e.commitment
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.ShuffleAnnounced)
    }


def _committed(redis_url: str, table_id: str, hand: int) -> list[str]:
    return [
        e.shuffle_id
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.ShuffleCommitted) and e.hand == hand
    ]


def _withdrawn(redis_url: str, table_id: str) -> list[events_pb2.ShuffleWithdrawn]:
    return [
        e for e in stored_events(redis_url, table_id) if isinstance(e, events_pb2.ShuffleWithdrawn)
    ]


def _withdrawn_and_revealed(redis_url: str, table_id: str, ids: set[str]) -> bool:
    stored = stored_events(redis_url, table_id)
    withdrawn = {e.shuffle_id for e in stored if isinstance(e, events_pb2.ShuffleWithdrawn)}
    unused = {
        e.shuffle_id for e in stored if isinstance(e, events_pb2.ShuffleRevealed) and e.unused
    }
    return ids <= withdrawn and ids <= unused


def _shuffle(platform: Platform, shuffle_id: str) -> dealer_pb2.ShuffleInfo:
    # (an auditor: the dealer gives a dealt shuffle's seed and cards to nobody else)
    token = auth.issue_token(KEY, "auditor", auth.Role.AUDITOR, 600)
    channel = connect(f"127.0.0.1:{platform.dealer_port}", token)
    platform.channels.append(channel)
    stub = dealer_pb2_grpc.DealerServiceStub(channel)
    return stub.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=shuffle_id)).shuffle


def _rejoin(platform: Platform, table_id: str, player: str, seat_no: int) -> None:
    platform.fund(player, 200)
    platform.table(player).JoinTable(
        table_pb2.JoinTableRequest(
            table_id=table_id, seat=seat_no, buy_in=200, idempotency_key=f"rejoin-{player}"
        )
    )


def _hand_1_then_wait(platform: Platform, redis_url: str, table_id: str) -> Stubs:
    """Alice and bob play hand 1 (bob sits out during it), so the table then waits for
    players with hands 2 and 3 announced."""
    stubs = {"alice": seat(platform, table_id, "alice", 0, 200)}
    stubs["bob"] = seat(platform, table_id, "bob", 1, 200)
    stubs["bob"].SitOut(table_pb2.SitOutRequest(table_id=table_id, idempotency_key="out"))
    fold(stubs, table_id, 1)
    wait_until(lambda: not view_of(stubs["alice"], table_id).hand_in_progress, 30, "hand 1 over")
    assert {f"{table_id}.hand-2", f"{table_id}.hand-3"} <= set(_announced(redis_url, table_id))
    assert view_of(stubs["alice"], table_id).hand_number == 1
    return stubs


def test_a_table_every_player_left_reveals_its_announced_shuffles_and_deals_fresh_ones(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=2)
    stubs = _hand_1_then_wait(platform, redis_url, table_id)
    ahead = {f"{table_id}.hand-2", f"{table_id}.hand-3"}
    for name, stub in stubs.items():
        leave = table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key=f"leave-{name}")
        stub.LeaveTable(leave)
    wait_until(
        lambda: _withdrawn_and_revealed(redis_url, table_id, ahead),
        30,
        "the emptied table's shuffles withdrawn and revealed",
    )
    assert {e.reason for e in _withdrawn(redis_url, table_id)} == {"the table emptied"}
    assert all(_shuffle(platform, s).revealed_seed for s in ahead)
    assert list(view_of(platform.table("watcher"), table_id).entropy_rounds) == []

    # Players sit down again: hand 2 is announced afresh and dealt from the new shuffle.
    _rejoin(platform, table_id, "alice", 0)
    _rejoin(platform, table_id, "bob", 1)
    fresh = f"{table_id}.hand-2_r2"
    play_hand({"alice": platform.table("alice"), "bob": platform.table("bob")}, table_id, 2)
    assert _committed(redis_url, table_id, 2) == [fresh]
    announced = _announced(redis_url, table_id)
    assert announced[fresh] != announced[f"{table_id}.hand-2"]
    wait_until(lambda: bool(_shuffle(platform, fresh).revealed_seed), 30, "hand 2's reveal")
    assert _shuffle(platform, fresh).steps, "hand 2 was dealt from its fresh shuffle"
    assert not _shuffle(platform, f"{table_id}.hand-2").steps, "nothing dealt from the withdrawn"
    # Hand 2's history lists both: the withdrawn one (revealed unused) and the one it dealt.
    request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=2)
    shuffles = platform.table("alice").GetHandHistory(request).shuffles
    assert [s.announced.shuffle_id for s in shuffles] == [f"{table_id}.hand-2", fresh]
    assert shuffles[0].withdrawn.reason == "the table emptied" and shuffles[0].revealed.unused
    assert shuffles[1].committed.shuffle_id == fresh and not shuffles[1].HasField("withdrawn")


@pytest.mark.idle_shuffles(IDLE_S, GRACE_S)
def test_a_table_idle_between_hands_reveals_its_announced_shuffles_after_a_restart(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=2)
    _hand_1_then_wait(platform, redis_url, table_id)
    ahead = {f"{table_id}.hand-2", f"{table_id}.hand-3"}
    assert _withdrawn(redis_url, table_id) == []
    # The instance that wrote the table goes away; another one finds the idle table.
    assert platform.stop_tables is not None and platform.start_instance is not None
    platform.stop_tables()
    platform.port = platform.start_instance()
    wait_until(
        lambda: _withdrawn_and_revealed(redis_url, table_id, ahead),
        IDLE_S + 30,
        "the idle table's shuffles withdrawn and revealed",
    )
    reasons = {e.reason for e in _withdrawn(redis_url, table_id)}
    assert reasons == {f"the table was idle for {int(IDLE_S)} s"}
    assert all(_shuffle(platform, s).revealed_seed for s in ahead)
    # Bob is back: hand 2 is dealt from a fresh shuffle.
    bob = platform.table("bob")
    bob.SitIn(table_pb2.SitInRequest(table_id=table_id, idempotency_key="in"))
    play_hand({"alice": platform.table("alice"), "bob": bob}, table_id, 2)
    assert _committed(redis_url, table_id, 2) == [f"{table_id}.hand-2_r2"]
