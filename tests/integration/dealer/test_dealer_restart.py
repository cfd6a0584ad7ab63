"""Kill the dealer process between two deals: the next dealer continues the committed order."""

from __future__ import annotations

import pytest

from croupier.dealer.v1 import dealer_pb2
from services.dealer.decks import DeckSpec
from services.dealer.derivation import Contribution, derive_order

from .conftest import player_stub, table_stub

pytestmark = pytest.mark.integration
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE


def test_a_killed_dealer_is_replaced_without_reshuffling(dealer_process, key_prefix):
    first, address = dealer_process()
    sid = f"{key_prefix}-restart"
    table = table_stub(address)
    table.CreateShuffle(
        dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=dealer_pb2.DeckSpec(kind=1))
    )
    player_stub(address).Contribute(dealer_pb2.ContributeRequest(shuffle_id=sid, entropy=b"alice"))
    before = list(table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=4, purpose=HOLE)).cards)

    first.kill()
    first.wait(timeout=10)
    _, address = dealer_process()
    table = table_stub(address)
    after = list(table.Deal(dealer_pb2.DealRequest(shuffle_id=sid, count=5, purpose=2)).cards)

    seed = table.Close(dealer_pb2.CloseRequest(shuffle_id=sid)).shuffle.revealed_seed
    order = derive_order(
        seed, sid, [Contribution("alice", b"alice")], 0, DeckSpec().card_multiset()
    )
    assert before + after == [str(card) for card in order[:9]]
