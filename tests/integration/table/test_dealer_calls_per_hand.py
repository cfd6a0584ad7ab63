"""A hand costs one dealer call per street on both runtimes: the boundary between two hands
(the last hand's Close, the Seal and CreateShuffle of the shuffles ahead, the next hand's hole
cards) is ONE AdvanceShuffles, and every later street one Deal. Counted at the real dealer
server (its per-method request counter), over real gRPC and real Redis; the reveals the
batches brought back are the dealer's own (`croupier verify` checks them)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from croupier.dealer.v1 import dealer_pb2
from tests.integration.table.conftest import Platform, create_table, seat, view_of
from tests.integration.table.test_entropy_every_hand import play_hand, revealed, verify

pytestmark = pytest.mark.parametrize("platform", ["aio", "sync"], indirect=True)
DEALER = dealer_pb2.DESCRIPTOR.services_by_name["DealerService"].full_name
COUNTED = ("AdvanceShuffles", "Deal", "CreateShuffle", "Seal", "Close")


def dealer_calls() -> dict[str, float]:
    """Answered dealer calls so far in this process, by method."""
    labels = {"grpc_service": DEALER, "grpc_code": "OK"}
    return {
        method: REGISTRY.get_sample_value(
            "croupier_grpc_requests_total", {**labels, "grpc_method": method}
        )
        or 0.0
        for method in COUNTED
    }


def dealt_and_waiting(platform: Platform, table_id: str, hand: int) -> None:
    """Wait until `hand` is dealt and waits for a player (its steps are all taken)."""
    stub = platform.table("alice")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = view_of(stub, table_id)
        if view.hand_number == hand and view.hand_in_progress and view.to_act >= 0:
            return
        time.sleep(0.02)
    raise AssertionError(f"hand {hand} was never dealt")


def test_two_hands_of_four_streets_are_eight_dealer_calls(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    table_id = create_table(platform, seats=2)
    stubs = {
        player: seat(platform, table_id, player, i, 200)
        for i, player in enumerate(("alice", "bob"))
    }
    play_hand(stubs, table_id, 1)
    dealt_and_waiting(platform, table_id, 2)
    before = dealer_calls()
    for hand in (2, 3):  # check and call to the showdown: hole cards, flop, turn, river
        play_hand(stubs, table_id, hand)
    dealt_and_waiting(platform, table_id, 4)
    after = dealer_calls()
    made = {method: after[method] - before[method] for method in COUNTED}
    # Each boundary (2 -> 3, 3 -> 4) one batch; each hand's flop, turn and river one Deal.
    assert made == {"AdvanceShuffles": 2, "Deal": 6, "CreateShuffle": 0, "Seal": 0, "Close": 0}
    for hand in (2, 3):
        path = tmp_path / f"hand-{hand}.json"
        path.write_text(json.dumps(revealed(redis_url, table_id, hand)))
        assert "OK" in verify(path)
