"""The table relays entropy to the dealer only for the players seated at it: anyone else's
ContributeEntropy is FAILED_PRECONDITION and reaches no shuffle. (The dealer takes entropy
from the table service alone: tests/integration/dealer/test_entropy_through_the_table.py.)"""

from __future__ import annotations

import grpc
import pytest

from services.shuffles.derivation import entropy_commitment
from tests.integration.table.conftest import Platform, create_table, seat
from tests.integration.table.test_shuffle_record import contribute

ENTROPY = b"sixteen or more bytes of entropy"


def test_only_a_seated_player_contributes_entropy_through_the_table(platform: Platform) -> None:
    table_id = create_table(platform, seats=3)
    stubs = {p: seat(platform, table_id, p, i, 200) for i, p in enumerate(("alice", "bob"))}
    shuffle_id = f"{table_id}.hand-3"  # the shuffle taking commitments while hand 1 plays
    for outsider in ("mallory", "table"):
        with pytest.raises(grpc.RpcError) as refused:
            contribute(
                platform.table(outsider),
                table_id,
                entropy_commitment=entropy_commitment(shuffle_id, outsider, ENTROPY),
            )
        assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert "has no seat" in (refused.value.details() or "")
    accepted = contribute(
        stubs["alice"],
        table_id,
        entropy_commitment=entropy_commitment(shuffle_id, "alice", ENTROPY),
    )
    # The first commitment the shuffle took is hers: none of the refused ones got there.
    assert (accepted.shuffle_id, accepted.index) == (shuffle_id, 0)
