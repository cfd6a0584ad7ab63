"""What the dealer records for a table's hand: each card under the purpose it was dealt for."""

from __future__ import annotations

import json

from croupier.table.v1 import table_pb2
from tests.integration.table.conftest import Platform, act, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events

A = table_pb2


def revealed(redis_url: str, table_id: str, hand: int) -> dict:
    reveal = next(
        e
        for e in stored_events(redis_url, table_id)
        if type(e).__name__ == "ShuffleRevealed" and e.hand == hand
    )
    return json.loads(reveal.reveal_json)


def play_to_showdown(platform: Platform, stubs: dict[str, object], table_id: str) -> None:
    """Check or call every decision of hand 1 until it ends."""
    for _ in range(40):
        view = view_of(stubs["alice"], table_id)
        if view.hand_number != 1 or not view.hand_in_progress:
            return
        player = view.seats[view.to_act].player_id
        own = view_of(stubs[player], table_id)
        legal = {a.action for a in own.legal_actions}
        for action in (A.ACTION_CHECK, A.ACTION_CALL, A.ACTION_SHOW):
            if action in legal:
                act(stubs[player], table_id, 1, action)
                break
    raise AssertionError("hand 1 did not end")


def test_the_dealer_records_burns_hole_and_board_cards_under_their_own_purposes(
    platform: Platform, redis_url
):
    table_id = create_table(platform, seats=2)
    stubs = {p: seat(platform, table_id, p, i, 200) for i, p in enumerate(("alice", "bob"))}
    play_to_showdown(platform, stubs, table_id)
    steps = [s["deal"] for s in revealed(redis_url, table_id, 1)["steps"]]
    purposes = [(s["purpose"].removeprefix("DEAL_PURPOSE_"), len(s["cards"])) for s in steps]
    assert purposes == [
        ("HOLE", 4),
        ("BURN", 1),
        ("BOARD", 3),
        ("BURN", 1),
        ("BOARD", 1),
        ("BURN", 1),
        ("BOARD", 1),
    ]
