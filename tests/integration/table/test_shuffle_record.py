"""What the dealer records for a table's hand: each card under the purpose it was dealt for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.client import cli
from services.games.cards import standard_deck
from services.shuffles.derivation import Contribution, entropy_commitment
from services.shuffles.positions import mixed_order
from tests.fixtures.conditions import wait_until
from tests.integration.table.conftest import Platform, act, create_table, seat, view_of
from tests.integration.table.test_idempotency import stored_events

A = table_pb2


def revealed(redis_url: str, table_id: str, hand: int) -> dict[str, Any]:
    """The dealer's reveal of `hand`'s shuffle, once recorded (the close follows the move
    that ended the hand, after its answer)."""

    def reveals() -> list[events_pb2.ShuffleRevealed]:
        stored = stored_events(redis_url, table_id)
        return [e for e in stored if isinstance(e, events_pb2.ShuffleRevealed) and e.hand == hand]

    wait_until(lambda: bool(reveals()), 20, f"hand {hand}'s shuffle revealed")
    reveal = reveals()[0]
    record: dict[str, Any] = json.loads(reveal.reveal_json)  # the reveal's JSON object
    return record


def play_to_showdown(
    platform: Platform, stubs: dict[str, table_pb2_grpc.TableServiceStub], table_id: str
) -> None:
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
    platform: Platform, redis_url: str
) -> None:
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


def fold_current_hand(stubs: dict[str, table_pb2_grpc.TableServiceStub], table_id: str) -> int:
    view = view_of(stubs["alice"], table_id)
    act(stubs[view.seats[view.to_act].player_id], table_id, view.hand_number, A.ACTION_FOLD)
    return view.hand_number


def contribute(
    stub: table_pb2_grpc.TableServiceStub, table_id: str, **fields: Any
) -> table_pb2.ContributeEntropyResponse:
    request = table_pb2.ContributeEntropyRequest(table_id=table_id, **fields)
    response: table_pb2.ContributeEntropyResponse = stub.ContributeEntropy(request)
    return response


def test_a_players_committed_entropy_reaches_the_shuffle_two_hands_ahead_and_verifies(
    platform: Platform, redis_url: str, tmp_path: Path
) -> None:
    table_id = create_table(platform, seats=2)
    stubs = {p: seat(platform, table_id, p, i, 200) for i, p in enumerate(("alice", "bob"))}
    # Hand 1 is dealt; its shuffle and hand 2's were announced before it (this platform's
    # tables wait for no entropy: both windows 0) and hand 3's with its start.
    announced = [
        e for e in stored_events(redis_url, table_id) if isinstance(e, events_pb2.ShuffleAnnounced)
    ]
    assert [(e.hand, e.shuffle_id) for e in announced] == [
        (1, f"{table_id}.hand-1"),
        (2, f"{table_id}.hand-2"),
        (3, f"{table_id}.hand-3"),
    ]
    shuffle_id = f"{table_id}.hand-3"
    entropy = b"alice's lucky bytes, 32 of them."
    commitment = entropy_commitment(shuffle_id, "alice", entropy)
    accepted = contribute(stubs["alice"], table_id, entropy_commitment=commitment)
    assert (accepted.hand_number, accepted.index) == (3, 0)
    assert accepted.commitment == announced[2].commitment
    bob_entropy = b"bob never reveals these 16+ bytes"
    bob = contribute(
        stubs["bob"],
        table_id,
        entropy_commitment=entropy_commitment(shuffle_id, "bob", bob_entropy),
    )
    assert bob.index == 1
    # Hand 2's shuffle was sealed when hand 1 started: no commitments any more.
    with pytest.raises(grpc.RpcError) as late:
        contribute(stubs["bob"], table_id, hand_number=2, entropy_commitment=commitment)
    assert late.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    # A reveal before hand 3's shuffle is sealed (when hand 2 starts) is out of phase.
    with pytest.raises(grpc.RpcError) as early:
        contribute(stubs["alice"], table_id, hand_number=3, entropy=entropy)
    assert early.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert fold_current_hand(stubs, table_id) == 1
    revealed_to = contribute(stubs["alice"], table_id, entropy=entropy)
    assert (revealed_to.hand_number, revealed_to.shuffle_id) == (3, shuffle_id)
    with pytest.raises(grpc.RpcError) as wrong:
        contribute(stubs["bob"], table_id, entropy=b"not what bob committed to....")
    assert wrong.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert fold_current_hand(stubs, table_id) == 2
    assert fold_current_hand(stubs, table_id) == 3  # dealt from alice's entropy, not bob's
    record = revealed(redis_url, table_id, 3)
    assert [c["contributor"] for c in record["contributions"]] == ["alice"]
    assert [(c["contributor"], c.get("revealed", False)) for c in record["commitments"]] == [
        ("alice", True),
        ("bob", False),
    ]
    seed = bytes.fromhex(record["revealed_seed_hex"])
    dealt = [card for s in record["steps"] for card in s["deal"]["cards"]]
    contributed = [Contribution("alice", entropy)]
    with_entropy = [str(c) for c in mixed_order(seed, shuffle_id, contributed, 0, standard_deck())]
    without = [str(c) for c in mixed_order(seed, shuffle_id, [], 0, standard_deck())]
    assert with_entropy[: len(dealt)] == dealt
    assert with_entropy != without
    # The recorded hand still passes the offline verifier.
    path = tmp_path / "hand3.json"
    path.write_text(json.dumps(record))
    verified = CliRunner().invoke(cli.app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
