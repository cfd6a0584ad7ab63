"""Kill the dealer process between two deals: the next dealer continues the committed order."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from croupier.dealer.v1 import dealer_pb2
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, entropy_commitment
from services.shuffles.positions import mixed_order

from .conftest import table_stub

pytestmark = pytest.mark.integration
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
BOARD = dealer_pb2.DEAL_PURPOSE_BOARD


def test_a_killed_dealer_is_replaced_without_reshuffling(
    dealer_process: Callable[[], tuple[subprocess.Popen[bytes], str]],
    key_prefix: str,
    tmp_path: Path,
) -> None:
    first, address = dealer_process()
    sid = f"{key_prefix}-restart"
    table = table_stub(address)
    standard = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=standard))
    entropy = b"alice's 16+ bytes of entropy"
    table.Contribute(
        dealer_pb2.ContributeRequest(
            shuffle_id=sid,
            contributor="alice",
            entropy_commitment=entropy_commitment(sid, "alice", entropy),
        )
    )
    table.Seal(dealer_pb2.SealRequest(shuffle_id=sid))
    table.RevealEntropy(
        dealer_pb2.RevealEntropyRequest(shuffle_id=sid, contributor="alice", entropy=entropy)
    )
    before = list(table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=4, purpose=HOLE)).cards)
    with pytest.raises(grpc.RpcError):  # exercise an error path before the kill, too
        table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=100, purpose=HOLE))

    first.kill()
    first.wait(timeout=10)
    _, address = dealer_process()
    table = table_stub(address)
    after = list(table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=5, purpose=BOARD)).cards)

    seed = table.Close(dealer_pb2.CloseRequest(shuffle_id=sid)).shuffle.revealed_seed
    contributions = [Contribution("alice", entropy)]
    order = mixed_order(seed, sid, contributions, 0, DeckSpec().card_multiset())
    assert before + after == [str(card) for card in order[:9]]
    # The first dealer died before Close: nothing it logged (at debug level) holds the seed.
    log = (tmp_path / "dealer-0.log").read_bytes()
    assert b"listening" in log, "expected the dealer's start-up log line"
    assert seed not in log and seed.hex().encode() not in log
