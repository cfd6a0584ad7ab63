"""Entropy reaches a shuffle only through the table service, which relays it under the
player's name once it has checked that the player sits at the table (the fair-dealing rule:
only the hand's players mix entropy into its deck). The dealer takes Contribute and
RevealEntropy only from the service subjects CROUPIER_DEALER_TABLES names: any other caller,
whatever its role and whoever it names as the contributor, is PERMISSION_DENIED and the
shuffle is unchanged. (The table's side, an unseated player refused and a seated one's
entropy reaching the shuffle two hands ahead: tests/integration/table/test_shuffle_record.py.)
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from services.shared import auth
from services.shuffles.derivation import entropy_commitment

from .conftest import stub

STANDARD = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)
ENTROPY = b"sixteen or more bytes of entropy"
OUTSIDERS = [
    ("alice", auth.Role.PLAYER),
    ("bot-tight-50-t1-s0", auth.Role.BOT),
    ("house", auth.Role.ADMIN),
    ("console", auth.Role.DEALER_CONSOLE),
    ("workers", auth.Role.SERVICE),  # a service, but not one that runs tables
    ("table", auth.Role.PLAYER),  # the table's name, without the service role
]


def code_of(call: Callable[[], object]) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert isinstance(error, grpc.Call)
    return error.code()


def shuffle(table: dealer_pb2_grpc.DealerServiceStub, sid: str) -> dealer_pb2.ShuffleInfo:
    return table.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=sid)).shuffle


def test_only_the_table_service_relays_entropy_to_a_shuffle(
    start_dealer: Callable[..., str], key_prefix: str
) -> None:
    address = start_dealer(CROUPIER_DEALER_TABLES="table,table-2")
    table = stub(address, "table", auth.Role.SERVICE)
    sid = f"{key_prefix}-entropy"
    table.CreateShuffle(dealer_pb2.CreateShuffleRequest(shuffle_id=sid, deck=STANDARD))
    for subject, role in OUTSIDERS:
        outsider = stub(address, subject, role)
        for contributor in (subject, "alice", "bob"):
            commit = dealer_pb2.ContributeRequest(
                shuffle_id=sid,
                contributor=contributor,
                entropy_commitment=entropy_commitment(sid, contributor, ENTROPY),
            )
            code = code_of(lambda r=commit, s=outsider: s.Contribute(r))  # type: ignore[misc]
            assert code is grpc.StatusCode.PERMISSION_DENIED, (subject, role, contributor)
    assert list(shuffle(table, sid).commitments) == []

    # The table services relay commitments (under the players' names)...
    table.Contribute(
        dealer_pb2.ContributeRequest(
            shuffle_id=sid,
            contributor="alice",
            entropy_commitment=entropy_commitment(sid, "alice", ENTROPY),
        )
    )
    stub(address, "table-2", auth.Role.SERVICE).Contribute(
        dealer_pb2.ContributeRequest(
            shuffle_id=sid,
            contributor="bob",
            entropy_commitment=entropy_commitment(sid, "bob", ENTROPY),
        )
    )
    table.Seal(dealer_pb2.SealRequest(shuffle_id=sid))
    # ... and only they relay the reveals.
    for subject, role in OUTSIDERS:
        outsider = stub(address, subject, role)
        reveal = dealer_pb2.RevealEntropyRequest(
            shuffle_id=sid, contributor="alice", entropy=ENTROPY
        )
        code = code_of(lambda r=reveal, s=outsider: s.RevealEntropy(r))  # type: ignore[misc]
        assert code is grpc.StatusCode.PERMISSION_DENIED, (subject, role)
    assert list(shuffle(table, sid).contributions) == []
    table.RevealEntropy(
        dealer_pb2.RevealEntropyRequest(shuffle_id=sid, contributor="alice", entropy=ENTROPY)
    )
    info = shuffle(table, sid)
    assert [c.contributor for c in info.commitments] == ["alice", "bob"]
    assert [c.contributor for c in info.contributions] == ["alice"]
