"""The shell's remembered command keys and its fast field replacement."""

from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

import pytest

from croupier.table.v1 import events_pb2
from services.table.shell import (
    REMEMBERED_KEYS,
    Decision,
    PendingCashOut,
    ShellState,
    _evolve,
    fold_message,
)


def accept(state: ShellState, version: int, key: str, events: int = 1) -> ShellState:
    return fold_message(state, version, events_pb2.CommandAccepted(key=key, by="p", events=events))


def test_a_command_key_answers_the_version_its_events_ended_at() -> None:
    state = accept(ShellState(), 10, "act-1", events=3)
    assert state.version_of_key("act-1") == 13 and state.version_of_key("act-2") is None


def test_a_table_remembers_only_its_newest_command_keys() -> None:
    state = ShellState()
    for n in range(REMEMBERED_KEYS + 5):
        state = accept(state, n * 2, f"k{n}")
    assert len(state.keys) == REMEMBERED_KEYS
    assert [state.version_of_key(f"k{n}") for n in range(5)] == [None] * 5
    assert state.version_of_key(f"k{REMEMBERED_KEYS + 4}") == (REMEMBERED_KEYS + 4) * 2 + 1
    # A key accepted again counts as the newest, so it outlives the keys in between.
    state = accept(state, 9000, "k5")
    state = accept(state, 9002, "fresh")
    assert state.version_of_key("k5") == 9001 and state.version_of_key("k6") is None


def test_folding_never_changes_an_earlier_state() -> None:
    before = accept(ShellState(), 1, "a")
    accept(before, 3, "b")
    assert dict(before.keys) == {"a": 2}


class _Changes(TypedDict):
    decisions: tuple[Decision, ...]
    ended_hand: int
    pending_cash_outs: tuple[PendingCashOut, ...]


def test_the_fast_replacement_is_dataclasses_replace() -> None:
    state = ShellState(table_id="t", keys={"a": 1}, decisions=(Decision(1, 2, 3, 4),))
    changes: _Changes = {"decisions": (), "ended_hand": 7, "pending_cash_outs": ()}
    assert _evolve(state, **changes) == replace(state, **changes)
    with pytest.raises(AttributeError):
        _evolve(state, no_such_field=1)
