"""A caller's key is one part of the table's command key, whatever it holds.

The table derives the keys of a command's later steps from the command's key
(`<key>/post` for a buy-in's ledger Post, `<key>/post/recorded` for the step's append,
`<key>/void`). A key of the caller's choosing that held '/' could be another command's key
plus such a suffix: a player who joined with "k/post/recorded", left, and joined again with
"k" made the table's buy-in step of the second join find its append key taken, take the step
as done, and wait for it for ever, with every player at the table. The caller's part of a
command key is now escaped, so no two commands' keys and no derived key coincide."""

from __future__ import annotations

import time
from collections.abc import Callable

from croupier.table.v1 import table_pb2
from services.shared import auth
from tests.integration.table.conftest import Platform, create_table, seat, view_of


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_key_that_is_another_keys_step_cannot_stall_the_table(platform: Platform) -> None:
    table_id = create_table(platform, seats=2)
    platform.fund("alice", 1000)
    alice = platform.table("alice")

    def join(key: str) -> None:
        alice.JoinTable(
            table_pb2.JoinTableRequest(table_id=table_id, seat=0, buy_in=200, idempotency_key=key)
        )

    join("k/post/recorded")
    escrow = f"table:{table_id}:CHIP"
    assert wait_for(lambda: platform.balance(escrow) == 200)
    alice.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    assert wait_for(lambda: platform.balance(escrow) == 0)
    join("k")  # its buy-in step's key would be the first join's command key
    assert wait_for(lambda: platform.balance(escrow) == 200)
    seat(platform, table_id, "bob", 1, 200)
    house = platform.table("house", auth.Role.ADMIN)
    assert wait_for(lambda: view_of(house, table_id).hand_in_progress), "the table stalled"
    assert platform.balance("player:alice:CHIP") == 800
