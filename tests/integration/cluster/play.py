"""Driving hold'em hands through the public API on the cluster (check/call to the end)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import cast

import grpc

from croupier.ledger.v1 import ledger_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.eventstore import stream_key
from tests.fixtures.redis_cluster import LocalRedisCluster
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    new_table_id,
    passive_action,
    seat,
    view_of,
)

BUY_IN = 200
# Statuses a command may meet while the cluster elects a new master: retried, same key.
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def table_on_another_master(cluster: LocalRedisCluster, ledger_namespace: str) -> str:
    """A table id whose stream's master is not the ledger journal's: a hand then writes to
    two cluster nodes."""
    ledger = cluster.master_of(stream_key("ledger", ledger_namespace))
    while True:
        table_id = new_table_id()
        if cluster.master_of(stream_key("table", table_id)) is not ledger:
            return table_id


def heads_up(platform: Platform, table_id: str) -> dict[int, table_pb2_grpc.TableServiceStub]:
    create_table(platform, table_id, seats=2)
    return {
        n: seat(platform, table_id, f"{name}-{table_id}", n, BUY_IN)
        for n, name in ((0, "alice"), (1, "bob"))
    }


def play_until_hand(
    platform: Platform,
    table_id: str,
    stubs: dict[int, table_pb2_grpc.TableServiceStub],
    hand: int,
    timeout_s: float = 30.0,
    acknowledged: dict[str, int] | None = None,
    between_moves: Callable[[], None] | None = None,
) -> table_pb2.TableView:
    """Check or call for whoever is to act until hand `hand` is on (every hand before it
    ended); returns the house's view then. A command that meets a cluster electing a master
    (UNAVAILABLE) is sent again with the same idempotency key. `acknowledged` collects each
    answered Act's key and the version it answered; `between_moves` runs before each move
    (a fault to inject)."""
    house = platform.table("house", auth.Role.ADMIN)
    deadline = time.monotonic() + timeout_s
    while True:
        assert time.monotonic() < deadline, f"hand {hand} not reached in {timeout_s} s"
        try:
            view = view_of(house, table_id)
        except grpc.RpcError as error:
            if error.code() not in RETRIED:
                raise
            time.sleep(0.05)
            continue
        if view.hand_number >= hand:
            return view
        if not view.hand_in_progress or view.to_act < 0:
            time.sleep(0.01)  # the deal or a street's cards are on their way
            continue
        if between_moves is not None:
            between_moves()
        stub = stubs[view.to_act]
        action, amount, cards = passive_action(view_of(stub, table_id))
        key = f"{table_id}-{view.hand_number}-{view.version}"
        for _attempt in range(200):
            try:
                answer = act(stub, table_id, view.hand_number, action, amount, cards, key=key)
                if acknowledged is not None:
                    acknowledged[key] = answer.version
                break
            except grpc.RpcError as error:
                if error.code() in RETRIED:
                    time.sleep(0.05)
                    continue
                if error.code() in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.ABORTED,
                ):
                    break  # the view moved on under us (a timeout, a deal): read it again
                raise


def seated_chips(view: table_pb2.TableView) -> int:
    """Chips at the table: every stack plus what each seat put in this hand."""
    return sum(s.stack + s.committed for s in view.seats)


def audit(platform: Platform) -> ledger_pb2.AuditResponse:
    return platform.ledger().Audit(ledger_pb2.AuditRequest())


def check_acknowledged_and_once(
    cluster: LocalRedisCluster, table_id: str, acknowledged: dict[str, int]
) -> None:
    """Every acknowledged Act is in the table's stream at the version it answered, and no
    command's events were appended twice (an idempotency key in one run of entries)."""
    client = cluster.client()
    try:
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]], client.xrange(stream_key("table", table_id))
        )
    finally:
        client.close()
    idem_of = {
        int(entry_id.split(b"-")[0]): fields[b"idem"].decode() for entry_id, fields in entries
    }
    assert sorted(idem_of) == list(range(1, len(entries) + 1)), "versions not contiguous"
    for key, version in acknowledged.items():
        assert key in idem_of.get(version, ""), (key, version, idem_of.get(version))
    runs: list[str] = []
    for version in sorted(idem_of):
        if not runs or runs[-1] != idem_of[version]:
            runs.append(idem_of[version])
    assert len(runs) == len(set(runs)), "a command's events were appended twice"
