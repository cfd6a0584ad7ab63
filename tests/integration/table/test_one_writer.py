"""One writer per table in a process: a command run on the thread pool (here a top-up) never
lands between a move and the process steps it leads to. If it did, a step dealing the next
cards would be redone at the new version under a new key, and the cards the dealer dealt
the first time would be in the dealer's record of the shuffle but in no hand."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter

import grpc

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2
from services.games.poker import events as ev
from services.shared import auth
from services.shared.channels import connect
from tests.integration.bots.soak import dealt_once
from tests.integration.table.conftest import (
    KEY,
    Platform,
    act,
    create_table,
    passive_action,
    seat,
    view_of,
)
from tests.integration.table.test_idempotency import stored_events

HANDS = 12


def test_top_ups_racing_the_streets_never_make_the_dealer_deal_cards_no_hand_holds(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=3, min_players_to_start=2)
    # Carol sits out before anyone else sits down, so she is in no hand and may top up
    # during the others' hands.
    carol = seat(platform, table_id, "carol", 2, 500)
    platform.fund("carol", 100_000, key="carol-top-ups")
    carol.SitOut(table_pb2.SitOutRequest(table_id=table_id, idempotency_key="out"))
    players = [seat(platform, table_id, name, n, 500) for n, name in enumerate(("al", "bo"))]
    stop = threading.Event()
    top_ups: list[int] = []
    refusals: list[str] = []

    def top_up_all_along() -> None:
        while not stop.is_set():
            request = table_pb2.TopUpRequest(
                table_id=table_id, amount=1, idempotency_key=uuid.uuid4().hex
            )
            try:
                top_ups.append(carol.TopUp(request, timeout=30).version)
            except grpc.RpcError as error:
                refusals.append(f"{error.code()}: {error.details()}")

    racer = threading.Thread(target=top_up_all_along, daemon=True)
    racer.start()
    try:
        while True:
            view = view_of(players[0], table_id)
            if view.hand_number > HANDS:
                break
            if not view.hand_in_progress or view.to_act not in (0, 1):
                time.sleep(0.005)  # (the table deals: look again)
                continue
            stub = players[view.to_act]
            action, amount, cards = passive_action(view_of(stub, table_id))
            try:
                act(stub, table_id, view.hand_number, action, amount, cards)
            except grpc.RpcError as error:  # (a view read before the table moved on)
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
    finally:
        stop.set()
        racer.join(60)
    assert len(top_ups) > HANDS, refusals[:3]  # (the race was run)

    by_hand: dict[int, list[object]] = {}
    shuffles: dict[int, str] = {}
    hand = 0
    for event in stored_events(redis_url, table_id):
        if isinstance(event, ev.HandStarted):
            hand = event.hand
        by_hand.setdefault(hand, []).append(event)
        if isinstance(event, events_pb2.ShuffleRevealed):
            shuffles[event.hand] = event.shuffle_id
    problems: list[str] = []
    # (the bot soak's reading of a hand's cards: also fails on a card dealt twice)
    dealt = {number: dealt_once(number, events, problems) for number, events in by_hand.items()}
    assert not problems, problems
    assert set(range(1, HANDS + 1)) <= set(shuffles)
    channel = connect(
        f"127.0.0.1:{platform.dealer_port}", auth.issue_token(KEY, "audit", auth.Role.ADMIN, 600)
    )
    try:
        dealer = dealer_pb2_grpc.DealerServiceStub(channel)
        for hand, shuffle_id in sorted(shuffles.items()):
            info = dealer.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=shuffle_id)).shuffle
            by_dealer = [c for s in info.steps if s.HasField("deal") for c in s.deal.cards]
            assert Counter(by_dealer) == Counter(dealt.get(hand, [])), (
                f"hand {hand}: the dealer dealt {sorted(by_dealer)}, "
                f"the table recorded {sorted(dealt.get(hand, []))}"
            )
    finally:
        channel.close()
