"""Every purpose a game may give a deal is one the dealer records, and each its own."""

from __future__ import annotations

from typing import get_args

from croupier.dealer.v1 import dealer_pb2
from services.games.contract import DealPurpose
from services.table import adapters


def test_every_purpose_a_game_may_name_has_its_own_dealer_value() -> None:
    named = set(get_args(DealPurpose))
    assert set(adapters._PURPOSES) == named
    values = list(adapters._PURPOSES.values())
    assert len(set(values)) == len(values)
    assert dealer_pb2.DEAL_PURPOSE_UNSPECIFIED not in values


def test_a_deal_request_carries_the_dealer_value_of_its_purpose() -> None:
    request = adapters.deal_request("t1-h3", 2, "t1/3/deal", "board", burn=1)
    assert request.purpose == dealer_pb2.DEAL_PURPOSE_BOARD
    assert (request.count, request.burn) == (2, 1)
