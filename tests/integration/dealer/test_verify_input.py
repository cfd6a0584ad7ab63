"""Verify(history) with a shuffle id no shuffle can have (empty, or over 128 bytes) is
INVALID_ARGUMENT saying so; it was INTERNAL (the derivation's own check escaped)."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from tests.integration.dealer.conftest import AUTH_KEY


@pytest.mark.parametrize("shuffle_id", ["", "x" * 129, "é" * 65], ids=["empty", "129", "130B"])
def test_verify_of_a_history_with_an_impossible_shuffle_id_is_invalid_argument(
    start_dealer: Callable[..., str], shuffle_id: str
) -> None:
    channel = connect(start_dealer(), auth.issue_token(AUTH_KEY, "alice", auth.Role.PLAYER))
    stub = dealer_pb2_grpc.DealerServiceStub(channel)
    history = dealer_pb2.HandHistory(
        shuffle_id=shuffle_id,
        deck=dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD),
        commitment=b"\0" * 32,
        server_seed=b"\1" * 32,
    )
    with pytest.raises(grpc.RpcError) as caught:
        stub.Verify(dealer_pb2.VerifyRequest(history=history))
    error = caught.value
    assert isinstance(error, grpc.Call)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert "shuffle id must be 1..128 bytes" in (error.details() or "")
    channel.close()
