"""Bots' Acts on their Play stream (services/bots/play_acts.py): the unary Act's answers and
errors, one stream for many Acts, a fresh stream after a failure or at its age limit."""

from __future__ import annotations

import random

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.bots.play_acts import ActsOnPlay, PlayActs, PlayRefusal
from services.bots.remote import TurnResult, play_turn
from services.bots.view import BotAction, BotView, Kind
from tests.integration.table.conftest import Platform, create_table, seat, wait_for_turn


def heads_up(platform: Platform) -> tuple[str, PlayActs, PlayActs]:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    assert wait_for_turn(alice, table_id).to_act == 0
    return table_id, PlayActs(alice), PlayActs(bob)


def act(table_id: str, action: table_pb2.Action.ValueType, key: str) -> table_pb2.ActRequest:
    return table_pb2.ActRequest(table_id=table_id, action=action, idempotency_key=key)


def test_acts_on_one_stream_answer_as_the_unary_call_would(platform: Platform) -> None:
    table_id, alice, bob = heads_up(platform)
    with pytest.raises(PlayRefusal) as refused:
        bob.Act(act(table_id, table_pb2.ACTION_CHECK, "bob-early"), timeout=30)
    assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "alice" in (refused.value.details() or "")  # whose turn it is
    called = alice.Act(act(table_id, table_pb2.ACTION_CALL, "alice-call"), timeout=30)
    again = alice.Act(act(table_id, table_pb2.ACTION_CALL, "alice-call"), timeout=30)
    assert again.version == called.version  # a retry on the stream: applied once
    checked = bob.Act(act(table_id, table_pb2.ACTION_CHECK, "bob-check"), timeout=30)
    assert checked.version > called.version
    assert (alice.streams_opened, bob.streams_opened) == (1, 1)  # the refusal kept the stream
    alice.close()
    bob.close()


def test_a_stream_past_its_age_is_replaced_before_the_next_act(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    alice_stub = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    assert wait_for_turn(alice_stub, table_id).to_act == 0
    alice = PlayActs(alice_stub, max_age_s=0.0)
    with pytest.raises(PlayRefusal):
        alice.Act(act(table_id, table_pb2.ACTION_CHECK, "not-legal"), timeout=30)  # facing 1
    alice.Act(act(table_id, table_pb2.ACTION_CALL, "alice-call"), timeout=30)
    assert alice.streams_opened == 2
    alice.close()


def test_a_bot_turn_acts_on_the_bot_s_play_stream(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    view = wait_for_turn(alice, table_id)
    calls = ActsOnPlay(alice, PlayActs(alice))

    def choose(bot_view: BotView, table: table_pb2.TableView, rng: random.Random) -> BotAction:
        return BotAction(Kind.CALL)

    result = play_turn(
        calls,
        (),
        table_id,
        choose,
        random.Random(1),
        "bot/alice/1",
        hand_number=view.hand_number,
        action_number=view.action_number,
    )
    assert result is TurnResult.ACTED
    assert calls.acts.streams_opened == 1
    assert wait_for_turn(alice, table_id).to_act == 1
    calls.acts.close()
