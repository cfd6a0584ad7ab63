"""Two table replicas on one cluster serve one table: each seat's commands go to a different
replica (expected versions arbitrate; each replica's cache catches up from the stream), a
WatchTable on either replica sees every event whichever replica wrote it, and a client
balancing over both (round_robin over the static list) plays on when one replica stops."""

from __future__ import annotations

import threading

import grpc
import pytest

from croupier.table.v1 import table_pb2
from services.shared import auth
from services.shared.channels import connect
from tests.integration.cluster.conftest import ClusterPlatform
from tests.integration.cluster.play import (
    BUY_IN,
    audit,
    play_until_hand,
    seated_chips,
    table_on_another_master,
)
from tests.integration.table.conftest import KEY, Platform, WatchStream, create_table, events_in

pytestmark = pytest.mark.integration
# WatchTable streams opened through the balanced client.
STREAMS = 6


class BalancedPlatform(Platform):
    """The platform as a client balancing over every table replica (one target, a list)."""

    target: str = ""

    def _channel(self, port: int, subject: str, role: auth.Role) -> grpc.Channel:
        if port != self.port:
            return super()._channel(port, subject, role)
        channel = connect(self.target, auth.issue_token(KEY, subject, role, 600))
        self.channels.append(channel)
        return channel


def _watch_hands(
    platform: Platform, port: int, table_id: str, ended: list[int], stop: threading.Event
) -> WatchStream:
    stream = platform.table("rail", auth.Role.PLAYER, port=port).WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id)
    )

    def read() -> None:
        try:
            for message in stream:
                for event in events_in(message):
                    if event.WhichOneof("event") == "hand_ended":
                        ended.append(event.hand_ended.hand)
                if stop.is_set():
                    return
        except grpc.RpcError:
            return  # cancelled at the end, or its replica stopped

    threading.Thread(target=read, daemon=True).start()
    return stream


def test_two_replicas_serve_one_table_and_a_balanced_client_outlives_one(
    on_cluster: ClusterPlatform,
) -> None:
    first = on_cluster.platform
    second_port = on_cluster.start_table()
    table_id = table_on_another_master(on_cluster.cluster, on_cluster.ledger_namespace)
    create_table(first, table_id, seats=2)
    stop = threading.Event()
    seen: dict[int, list[int]] = {first.port: [], second_port: []}
    streams = [_watch_hands(first, port, table_id, seen[port], stop) for port in seen]
    # Alice's commands through the first replica, Bob's through the second.
    stubs = {}
    for seat_no, (name, port) in enumerate((("alice", first.port), ("bob", second_port))):
        player = f"{name}-{table_id}"
        first.fund(player, BUY_IN)
        stubs[seat_no] = first.table(player, port=port)
        stubs[seat_no].JoinTable(
            table_pb2.JoinTableRequest(
                table_id=table_id, seat=seat_no, buy_in=BUY_IN, idempotency_key=f"join-{player}"
            )
        )
    play_until_hand(first, table_id, stubs, hand=3)
    # Now both players through one client balancing over the two replicas; the first stops.
    balanced = BalancedPlatform(port=first.port, ledger_port=first.ledger_port)
    balanced.target = ",".join(f"127.0.0.1:{port}" for port in seen)
    balanced_stubs = {
        n: balanced.table(f"{name}-{table_id}") for n, name in enumerate(("alice", "bob"))
    }
    play_until_hand(balanced, table_id, balanced_stubs, hand=4)
    # Streams opened through the balanced client go to both replicas in turn.
    balanced_seen: list[list[int]] = [[] for _ in range(STREAMS)]
    streams += [
        _watch_hands(balanced, balanced.port, table_id, ended, stop) for ended in balanced_seen
    ]
    on_cluster.stop_table(0)
    view = play_until_hand(balanced, table_id, balanced_stubs, hand=6)
    stop.set()
    for stream in streams:
        stream.cancel()
    for channel in balanced.channels:
        channel.close()
    assert seated_chips(view) == 2 * BUY_IN
    assert first.balance(f"table:{table_id}:CHIP") == 2 * BUY_IN
    assert audit(first).clean
    # The second replica's watcher saw every hand end, those the first replica wrote too.
    assert seen[second_port][:5] == [1, 2, 3, 4, 5]
    assert seen[first.port][:3] == [1, 2, 3]
    # Round robin: some balanced streams were on the stopped replica (they saw no hand after
    # the 4th began), the others on the one that lived, which told them of hand 5's end.
    survivors = [ended for ended in balanced_seen if 5 in ended]
    assert 0 < len(survivors) < STREAMS, balanced_seen
