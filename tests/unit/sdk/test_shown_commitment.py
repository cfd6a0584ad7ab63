"""The commitment a hand's shuffle showed before the hand, from the table's own records."""

from __future__ import annotations

import pytest

from croupier.table.v1 import events_pb2, table_pb2
from services.sdk import shown_commitment, shuffle_id_of

SID = "t1.hand-2"


def test_a_standard_deck_shows_the_commitment_it_was_announced_with() -> None:
    shuffle = table_pb2.HandShuffle(
        announced=events_pb2.ShuffleAnnounced(hand=2, shuffle_id=SID, commitment="ab" * 32),
        committed=events_pb2.ShuffleCommitted(hand=2, shuffle_id=SID, commitment="ab" * 32),
    )
    assert shown_commitment(shuffle) == "ab" * 32
    assert shuffle_id_of(shuffle) == SID


def test_a_custom_deck_shows_the_commitment_recorded_at_its_hands_start() -> None:
    shuffle = table_pb2.HandShuffle(
        committed=events_pb2.ShuffleCommitted(
            hand=2, shuffle_id=SID, commitment="cd" * 32, custom_deck=True
        )
    )
    assert shown_commitment(shuffle) == "cd" * 32


def test_a_shuffle_committed_to_something_else_than_it_announced_is_refused() -> None:
    shuffle = table_pb2.HandShuffle(
        announced=events_pb2.ShuffleAnnounced(hand=2, shuffle_id=SID, commitment="ab" * 32),
        committed=events_pb2.ShuffleCommitted(hand=2, shuffle_id=SID, commitment="cd" * 32),
    )
    with pytest.raises(ValueError, match="announced"):
        shown_commitment(shuffle)
