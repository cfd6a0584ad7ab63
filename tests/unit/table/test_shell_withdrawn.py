"""The shell's record of withdrawn shuffles: out of the announced ones at once, revealed next,
and the round's next shuffle under a fresh id until the round's own deck is revealed."""

from __future__ import annotations

from croupier.table.v1 import events_pb2
from services.table.games import poker
from services.table.shell import ShellState, fold_shell

T = "t1"


def _fold(*events: object) -> ShellState:
    state = ShellState(table_id=T)
    for version, event in enumerate(events, start=1):
        state = fold_shell(state, version, event, poker.ADAPTER)
    return state


def _announced(hand: int, shuffle_id: str) -> events_pb2.ShuffleAnnounced:
    return events_pb2.ShuffleAnnounced(hand=hand, shuffle_id=shuffle_id, commitment="ab" * 32)


def _withdrawn(hand: int, shuffle_id: str) -> events_pb2.ShuffleWithdrawn:
    return events_pb2.ShuffleWithdrawn(hand=hand, shuffle_id=shuffle_id, reason="emptied")


def test_a_withdrawn_shuffle_leaves_the_announced_ones_and_waits_for_its_reveal() -> None:
    state = _fold(
        _announced(2, "t1.hand-2"), _announced(3, "t1.hand-3"), _withdrawn(2, "t1.hand-2")
    )
    assert [u.shuffle_id for u in state.upcoming] == ["t1.hand-3"]
    assert [u.shuffle_id for u in state.withdrawn] == ["t1.hand-2"]
    assert state.upcoming_shuffle(2) is None
    revealed = events_pb2.ShuffleRevealed(hand=2, shuffle_id="t1.hand-2", unused=True)
    assert _fold(_announced(2, "t1.hand-2"), _withdrawn(2, "t1.hand-2"), revealed).withdrawn == ()


def test_a_round_whose_shuffle_was_withdrawn_deals_from_a_fresh_id() -> None:
    assert ShellState().shuffle_id_for(T, 2) == "t1.hand-2"
    once = _fold(_announced(2, "t1.hand-2"), _withdrawn(2, "t1.hand-2"))
    assert once.shuffle_id_for(T, 2) == "t1.hand-2_r2"
    assert once.shuffle_id_for(T, 3) == "t1.hand-3"  # (another round: untouched)
    twice = _fold(
        _announced(2, "t1.hand-2"),
        _withdrawn(2, "t1.hand-2"),
        _announced(2, "t1.hand-2_r2"),
        _withdrawn(2, "t1.hand-2_r2"),
    )
    assert twice.shuffle_id_for(T, 2) == "t1.hand-2_r3"


def test_the_fresh_id_holds_until_its_rounds_deck_is_revealed() -> None:
    dealt = _fold(
        _announced(2, "t1.hand-2"),
        _withdrawn(2, "t1.hand-2"),
        events_pb2.ShuffleRevealed(hand=2, shuffle_id="t1.hand-2", unused=True),
        _announced(2, "t1.hand-2_r2"),
        events_pb2.ShuffleCommitted(hand=2, shuffle_id="t1.hand-2_r2", commitment="cd" * 32),
    )
    assert dealt.shuffle_id_for(T, 2) == "t1.hand-2_r2"  # (its cards, its reveal)
    after = fold_shell(
        dealt, 99, events_pb2.ShuffleRevealed(hand=2, shuffle_id="t1.hand-2_r2"), poker.ADAPTER
    )
    assert after.reannounced == ()


def test_withdrawing_a_shuffle_that_is_not_announced_changes_nothing() -> None:
    state = _fold(_announced(3, "t1.hand-3"))
    assert _fold(_announced(3, "t1.hand-3"), _withdrawn(2, "t1.hand-2")) == state
