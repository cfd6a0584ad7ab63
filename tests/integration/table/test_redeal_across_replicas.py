"""A table replica that deals a street and is killed before its append leaves that deal in
the dealer's record only. The replica that takes the table over takes the step again; when
another append landed in between (here a sat-out player's top-up), the step's key is new.
The deal names its position in the shuffle, so the dealer answers it with the cards it dealt
the first time: the hand holds exactly the dealer's record, with no card dealt twice and
none dealt that no hand holds.

The table service runs as a real process (both runtimes), killed with SIGKILL; the dealer and
ledger are real servers. The lost deal is the very request the killed replica sent: the
table's own step (its key, its position) taken from the stream as it stood, sent to the dealer
as the table identity while no replica runs.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.games import contract as c
from services.games.poker import events as ev
from services.shared import auth
from services.shared.channels import connect
from services.table import process
from services.table.adapters import GrpcDealer
from tests.fixtures.conditions import wait_until
from tests.integration.bots.soak import dealt_once
from tests.integration.table.conftest import KEY, act, create_table, passive_action, seat, view_of
from tests.integration.table.process_stack import Stack, stack

TIMEOUT_S = 60.0  # generous for a loaded machine; a healthy run takes a few seconds


@pytest.fixture(params=["aio", "sync"])
def replicas(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str, tmp_path: Path
) -> Iterator[Stack]:
    with stack(
        redis_url,
        key_prefix,
        tmp_path,
        CROUPIER_TABLE_RUNTIME=request.param,
        CROUPIER_TABLE_VOID_AFTER_S="300",
    ) as running:
        yield running


def dealer_as(stack: Stack, subject: str, role: auth.Role) -> grpc.Channel:
    return connect(
        f"127.0.0.1:{stack.platform.dealer_port}", auth.issue_token(KEY, subject, role, 600)
    )


def test_a_street_dealt_by_a_killed_replica_is_the_street_its_successor_deals(
    replicas: Stack,
) -> None:
    platform = replicas.platform
    table_id = create_table(platform, seats=3, min_players_to_start=2)
    # Carol sits out before the others sit down: in no hand, she may top up during one.
    carol = seat(platform, table_id, "carol", 2, 500)
    platform.fund("carol", 1_000, key="carol-top-up")
    carol.SitOut(table_pb2.SitOutRequest(table_id=table_id, idempotency_key="out"))
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    wait_until(lambda: view_of(alice, table_id).to_act in (0, 1), TIMEOUT_S, "hand 1 dealt")
    first, second = (alice, bob) if view_of(alice, table_id).to_act == 0 else (bob, alice)
    act(first, table_id, 1, table_pb2.ACTION_CALL)
    replicas.stop_dealer()
    act(second, table_id, 1, table_pb2.ACTION_CHECK)  # recorded; the flop cannot be dealt

    # The step the replica takes next, as the stream stands: the flop.
    before = replicas.recorded(table_id)
    step = process.next_step(before)
    assert isinstance(step, process.Fetch) and isinstance(step.request, c.DrawCards)
    flop = step.request
    shuffle_id = before.shell.shuffle_id_for(table_id, flop.round, flop.name)
    lost_key = process.step_key(before, step)
    position = before.shell.dealt_from(shuffle_id)
    assert position == 4  # the two hands' hole cards

    # Another append lands before the replica's deal is recorded: Carol's top-up.
    top_up = table_pb2.TopUpRequest(table_id=table_id, amount=100, idempotency_key="top-up")
    carol.TopUp(top_up, timeout=30)
    wait_until(
        lambda: not replicas.recorded(table_id).shell.pending_buy_ins,
        TIMEOUT_S,
        "top-up posted",
        replicas.table.log,
    )
    replicas.table.kill()
    retaken = replicas.recorded(table_id)
    again = process.next_step(retaken)
    assert again is not None and process.step_key(retaken, again) != lost_key  # a new key

    # The killed replica's deal (its key and position) reached the dealer; its append did not.
    replicas.start_dealer()
    channel = dealer_as(replicas, "table", auth.Role.SERVICE)
    try:
        lost = GrpcDealer(channel).deal(
            shuffle_id, flop.count, lost_key, flop.purpose, flop.burn, position
        )
    finally:
        channel.close()

    replicas.table.start()  # the replica that takes the table over
    wait_until(
        lambda: len(view_of(alice, table_id).board) == 3, TIMEOUT_S, "flop", replicas.table.log
    )
    assert list(view_of(alice, table_id).board) == list(lost[flop.burn :])
    play_out_hand_1(alice, bob, table_id)

    events = replicas.events(table_id)
    hand_1 = hand_events(events, 1)
    problems: list[str] = []
    held = dealt_once(1, hand_1, problems)
    assert not problems, problems
    revealed = next(e for e in events if isinstance(e, events_pb2.ShuffleRevealed) and e.hand == 1)
    admin = dealer_as(replicas, f"audit-{uuid.uuid4().hex[:6]}", auth.Role.ADMIN)
    try:
        info = (
            dealer_pb2_grpc.DealerServiceStub(admin)
            .GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=revealed.shuffle_id))
            .shuffle
        )
    finally:
        admin.close()
    by_dealer = [card for s in info.steps if s.HasField("deal") for card in s.deal.cards]
    assert Counter(by_dealer) == Counter(held), (
        f"the dealer dealt {sorted(by_dealer)}, hand 1 holds {sorted(held)}"
    )


def play_out_hand_1(
    alice: table_pb2_grpc.TableServiceStub, bob: table_pb2_grpc.TableServiceStub, table_id: str
) -> None:
    """Check or call hand 1 down (seats 0 and 1)."""
    players = (alice, bob)

    def hand_1_over() -> bool:
        view = view_of(alice, table_id)
        if view.hand_number > 1 or not view.hand_in_progress:
            return True
        if view.to_act in (0, 1):
            stub = players[view.to_act]
            action, amount, cards = passive_action(view_of(stub, table_id))
            try:
                act(stub, table_id, 1, action, amount, cards)
            except grpc.RpcError as error:  # (a view read before the table moved on)
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
        return False

    wait_until(hand_1_over, TIMEOUT_S, "hand 1 over")


def hand_events(events: list[object], number: int) -> list[object]:
    hand = 0
    selected = []
    for event in events:
        if isinstance(event, ev.HandStarted):
            hand = event.hand
        if hand == number:
            selected.append(event)
    return selected
