"""A Redis Cluster master fails over mid-game: CLUSTER FAILOVER (the replica catches up first),
then a kill -9 of a master. The services ride through the election (a command meeting it is
UNAVAILABLE and retried with its key), the hands go on, every acknowledged command is in its
stream exactly once, every chip is accounted for and the ledger audit is clean."""

from __future__ import annotations

import threading
import uuid

import pytest

from croupier.common.v1 import chips_pb2
from services.shared.errors import Unavailable
from services.shared.eventstore import EventRegistry, RedisEventStore, stream_key
from services.shared.redis_connection import STORAGE_DOWN
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_cluster import LocalRedisCluster, wait_for_write
from tests.integration.cluster.conftest import ClusterPlatform
from tests.integration.cluster.play import (
    BUY_IN,
    audit,
    check_acknowledged_and_once,
    heads_up,
    play_until_hand,
    seated_chips,
    table_on_another_master,
)

pytestmark = pytest.mark.integration
RETRIED: tuple[type[Exception], ...] = (*STORAGE_DOWN, Unavailable)


def test_appends_acknowledged_during_a_cluster_failover_are_all_kept(
    redis_cluster: LocalRedisCluster,
) -> None:
    redis_cluster.wait_healthy()
    registry = EventRegistry()
    registry.register(chips_pb2.ChipAmount)
    client = redis_cluster.client()
    store = RedisEventStore(client, registry, durability="everysec")
    stream = stream_key("failover", uuid.uuid4().hex)
    acknowledged: list[int] = []
    stop = threading.Event()

    def write() -> None:
        # One writer, each append at the version it saw; a refused one (the election) is
        # sent again with the same key, so it lands once whatever happened to the first try.
        while not stop.is_set():
            number = len(acknowledged) + 1
            event = chips_pb2.ChipAmount(currency="CHIP", amount=number)
            try:
                result = store.append(stream, [event], number - 1, f"append-{number}")
            except RETRIED:  # the slot has no master for a moment
                continue  # (a Conflict would be a lost or doubled append: it fails the test)
            acknowledged.append(result.last_version)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        wait_until(lambda: len(acknowledged) > 50, 20, "appends flowing")
        master = redis_cluster.master_of(stream)
        redis_cluster.failover(master)
        before = len(acknowledged)
        wait_until(lambda: len(acknowledged) > before + 50, 20, "appends after the failover")
    finally:
        stop.set()
        writer.join(20)
    recorded = store.read(stream)
    assert [event.version for event in recorded] == acknowledged
    assert [event.message.amount for event in recorded] == acknowledged  # type: ignore[attr-defined]
    client.close()


def test_hands_play_on_through_a_failover_and_a_kill_9_of_a_master(
    on_cluster: ClusterPlatform,
) -> None:
    cluster, platform = on_cluster.cluster, on_cluster.platform
    table_id = table_on_another_master(cluster, on_cluster.ledger_namespace)
    stubs = heads_up(platform, table_id)
    acknowledged: dict[str, int] = {}
    moves = [0]
    faults = {
        # The table stream's master, by CLUSTER FAILOVER, a few moves into the game.
        4: lambda: cluster.failover(cluster.master_of(stream_key("table", table_id))),
        # The ledger's master, by SIGKILL, once its replica has caught up (replication is
        # asynchronous: docs/scale-out.md says what a kill inside the lag loses).
        10: lambda: cluster.kill_master(
            cluster.master_of(stream_key("ledger", on_cluster.ledger_namespace)), synced=True
        ),
    }

    def between_moves() -> None:
        moves[0] += 1
        fault = faults.pop(moves[0], None)
        if fault is not None:
            fault()

    view = play_until_hand(
        platform,
        table_id,
        stubs,
        hand=4,
        timeout_s=60,
        acknowledged=acknowledged,
        between_moves=between_moves,
    )
    assert not faults, "the game ended before every fault was injected"
    assert seated_chips(view) == 2 * BUY_IN
    assert platform.balance(f"table:{table_id}:CHIP") == 2 * BUY_IN
    report = audit(platform)
    assert report.clean, list(report.differences)
    check_acknowledged_and_once(cluster, table_id, acknowledged)
    client = cluster.client()
    wait_for_write(client, stream_key("ledger", on_cluster.ledger_namespace) + ":probe")
    client.close()
