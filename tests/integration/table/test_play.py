"""Acts on a Play stream: each message one Act with Act's rules, answered in order on the stream;
a refused Act is answered with its status, changes nothing, and the stream goes on."""

from __future__ import annotations

import grpc
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.integration.table.conftest import (
    Platform,
    PlayStream,
    create_table,
    seat,
    view_of,
    wait_for_turn,
)


@pytest.fixture
def heads_up(platform: Platform) -> tuple[str, PlayStream, PlayStream]:
    """A heads-up table with its first hand on (alice on the button acts first before the
    flop) and each player's Play stream."""
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    assert wait_for_turn(alice, table_id).to_act == 0
    return table_id, PlayStream(alice), PlayStream(bob)


def test_acts_on_a_stream_are_applied_and_answered_in_order(
    platform: Platform, heads_up: tuple[str, PlayStream, PlayStream]
) -> None:
    table_id, alice, bob = heads_up
    raised = alice.act(table_id, table_pb2.ACTION_RAISE, amount=6, key="alice-raise")
    assert raised.WhichOneof("result") == "act" and raised.idempotency_key == "alice-raise"
    called = bob.act(table_id, table_pb2.ACTION_CALL, key="bob-call")
    assert called.WhichOneof("result") == "act" and called.act.version > raised.act.version
    view = view_of(platform.table("alice"), table_id)
    assert view.version >= called.act.version
    assert len(view.board) == 3  # the call closed the first round: the flop is out
    # A retry on the stream answers the first result and acts once.
    again = alice.act(table_id, table_pb2.ACTION_RAISE, amount=6, key="alice-raise")
    assert again.act.version == raised.act.version
    assert view_of(platform.table("alice"), table_id).version == view.version
    alice.close()
    bob.close()


def test_a_refused_act_is_answered_with_its_status_and_the_stream_goes_on(
    platform: Platform, heads_up: tuple[str, PlayStream, PlayStream]
) -> None:
    table_id, alice, bob = heads_up
    before = view_of(platform.table("alice"), table_id).version
    out_of_turn = bob.act(table_id, table_pb2.ACTION_CHECK, key="bob-early")
    assert out_of_turn.WhichOneof("result") == "error"
    assert out_of_turn.idempotency_key == "bob-early"
    assert out_of_turn.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert "alice" in out_of_turn.error.message  # names whose turn it is
    too_small = alice.act(table_id, table_pb2.ACTION_RAISE, amount=3)
    assert too_small.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "4" in too_small.error.message  # the legal range starts at a raise to 4
    for_bob = alice.act(table_id, table_pb2.ACTION_FOLD, seat=1)
    assert for_bob.error.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    unknown = alice.act("no-such-table", table_pb2.ACTION_FOLD)
    assert unknown.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert view_of(platform.table("alice"), table_id).version == before  # nothing changed
    # The same streams act on.
    assert alice.act(table_id, table_pb2.ACTION_CALL).WhichOneof("result") == "act"
    assert bob.act(table_id, table_pb2.ACTION_CHECK).WhichOneof("result") == "act"
    alice.close()
    bob.close()


def test_a_stream_without_credentials_is_refused(platform: Platform) -> None:
    channel = grpc.insecure_channel(f"127.0.0.1:{platform.port}")
    try:
        responses = table_pb2_grpc.TableServiceStub(channel).Play(iter([]))
        with pytest.raises(grpc.RpcError) as refused:
            list(responses)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        channel.close()


def test_an_empty_or_stale_request_is_refused_and_the_stream_goes_on(
    platform: Platform, heads_up: tuple[str, PlayStream, PlayStream]
) -> None:
    table_id, alice, _ = heads_up
    before = view_of(platform.table("alice"), table_id).version
    empty = alice.send(table_pb2.PlayRequest())  # no Act in it
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    stale = alice.send(
        table_pb2.PlayRequest(
            act=table_pb2.ActRequest(
                table_id=table_id,
                action=table_pb2.ACTION_CALL,
                expected_version=before - 1,
                idempotency_key="alice-stale",
            )
        )
    )
    assert stale.error.code == grpc.StatusCode.ABORTED.value[0]
    assert str(before) in stale.error.message  # names the current version
    assert view_of(platform.table("alice"), table_id).version == before
    assert alice.act(table_id, table_pb2.ACTION_CALL).WhichOneof("result") == "act"
    alice.close()
