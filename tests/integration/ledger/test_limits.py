"""The commit script refuses a change that would take a balance beyond 2**53 - 1 even when the
decision was made on an older snapshot (a concurrent deposit landed in between), and writes
nothing."""

from __future__ import annotations

import pytest
import redis

from services.ledger.core.accounts import AccountKind
from services.ledger.core.commands import Command, Deposit, OpenAccount
from services.ledger.core.decide import decide
from services.ledger.core.entries import MAX_CHIPS
from services.ledger.core.events import Event
from services.ledger.core.state import apply_all
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.store import Commit, Committed, Snapshot, Stale

pytestmark = pytest.mark.integration

ALICE = "player:alice:CHIP"


def _commit(store: RedisLedgerStore, command: Command, key: str) -> tuple[Snapshot, list[Event]]:
    snapshot = store.load([ALICE, "external:world:CHIP"], [], key)
    events = decide(snapshot.state, command)
    return snapshot, events


def test_a_stale_decision_cannot_overflow_a_balance(redis_client: redis.Redis) -> None:
    store = RedisLedgerStore(redis_client, namespace="limits")
    opened = store.load([ALICE], [], "")
    events = decide(opened.state, OpenAccount(AccountKind.PLAYER, "alice", "CHIP"))
    assert isinstance(store.commit(Commit("", b"", b"", events, opened.state)), Committed)

    snapshot, seed = _commit(store, Deposit("d0", ALICE, "CHIP", 1), "d0")
    assert isinstance(store.commit(Commit("d0", b"h0", b"r0", seed, snapshot.state)), Committed)
    big = MAX_CHIPS - 10
    first_snapshot, first = _commit(store, Deposit("d1", ALICE, "CHIP", big), "d1")
    second_snapshot, second = _commit(store, Deposit("d2", ALICE, "CHIP", big), "d2")
    assert isinstance(
        store.commit(Commit("d1", b"h1", b"r1", first, first_snapshot.state)), Committed
    )
    # d2 was decided before d1 landed: alone it fits, together they would not.
    result = store.commit(Commit("d2", b"h2", b"r2", second, second_snapshot.state))
    assert isinstance(result, Stale) and "limit" in result.reason
    journal, projection = store.journal_and_projection()
    assert projection.balances[ALICE] == big + 1
    assert apply_all(opened.state, journal[1:]).balance(ALICE) == big + 1
