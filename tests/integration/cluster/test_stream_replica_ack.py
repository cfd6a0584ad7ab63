"""The table's stream and the dealer's record on a real 3-master Redis Cluster (a replica
each), with the services waiting for one replica before acknowledging an append
(CROUPIER_TABLE_WAIT_REPLICAS=1, CROUPIER_DEALER_WAIT_REPLICAS=1).

The replication lag is made long on purpose: the master's replica is stopped (SIGSTOP), so
every write from then on is on the master alone, and the master is SIGKILLed while writes
keep coming. Nothing acknowledged may be missing once the replica is elected; and while the
replica is stopped nothing is acknowledged at all (UNAVAILABLE, "not confirmed by 1
replica"); the same command retried with its key after the election is applied once.
Without the wait, the writes made while the replica was stopped are acknowledged and lost.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
import redis

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc, events_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import stream_key
from services.shared.eventstore.keys import version_key
from services.shared.redis_embedded import EmbeddedRedis
from services.shared.replica_ack import ReplicaAck
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_cluster import LocalRedisCluster
from tests.fixtures.service_process import ServiceProcess
from tests.integration.cluster.conftest import ClusterPlatform, platform_on
from tests.integration.cluster.play import (
    RETRIED,
    check_acknowledged_and_once,
    heads_up,
    play_until_hand,
    table_on_another_master,
)
from tests.integration.table.conftest import act, passive_action, view_of

pytestmark = pytest.mark.integration

KEY = "stream-replica-ack-signing-key-0123456789abcdef"
STANDARD = dealer_pb2.DeckSpec(kind=dealer_pb2.DECK_KIND_STANDARD)
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
CLIENTS = 6
DEALS_PER_SHUFFLE = 50  # of a 52-card deck, one card a deal
NOT_CONFIRMED = "not confirmed by 1 replica"


@pytest.fixture
def cluster(redis_cluster: LocalRedisCluster) -> LocalRedisCluster:
    for node in redis_cluster.nodes:
        if not node.running:
            node.restart()
    redis_cluster.wait_healthy()
    return redis_cluster


def pid_of(node: EmbeddedRedis) -> int:
    client = redis.Redis(host=node.host, port=node.port)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def master_offset(node: EmbeddedRedis) -> int:
    client = redis.Redis(host=node.host, port=node.port)
    try:
        return int(client.info("replication")["master_repl_offset"])
    finally:
        client.close()


def version_on(node: EmbeddedRedis, stream: str) -> int:
    """The stream's version as this node holds it (not through the cluster client)."""
    client = redis.Redis(host=node.host, port=node.port)
    try:
        raw = client.get(version_key(stream))
        return int(cast(bytes, raw)) if raw is not None else 0
    finally:
        client.close()


def cut_off(cluster: LocalRedisCluster, master: EmbeddedRedis) -> tuple[EmbeddedRedis, int]:
    """Stop the master's replica (SIGSTOP) and have the master close its link: writes from
    then on are on the master alone, inside a replication lag that lasts until `resume`.
    (Stopped alone, the replica's socket would still take in what the master sends, and
    apply it once it runs again.) Returns the replica and its pid."""
    replica = cluster.replicas_of(master)[0]
    pid = pid_of(replica)
    os.kill(pid, signal.SIGSTOP)
    client = redis.Redis(host=master.host, port=master.port)
    try:
        client.client_kill_filter(_type="replica")
    finally:
        client.close()
    return replica, pid


def resume(pid: int) -> None:
    os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def replica_stopped(cluster: LocalRedisCluster, master: EmbeddedRedis) -> Iterator[EmbeddedRedis]:
    """`cut_off` for the block."""
    replica, pid = cut_off(cluster, master)
    try:
        yield replica
    finally:
        resume(pid)


def elect(cluster: LocalRedisCluster, master: EmbeddedRedis, replica: EmbeddedRedis) -> None:
    """(the master killed, its replica running again) Until the replica is elected and the
    old master is back as its replica: a master with no replica acknowledges nothing."""
    wait_until(lambda: cluster.role(replica) == "master", 30, "the replica elected")
    master.restart()
    cluster.wait_healthy()


def on_master(
    cluster: LocalRedisCluster, master: EmbeddedRedis, kind: str, count: int
) -> list[str]:
    """`count` aggregate ids of `kind` whose streams `master` holds."""
    ids: list[str] = []
    while len(ids) < count:
        candidate = f"ra{uuid.uuid4().hex[:10]}"
        if cluster.master_of(stream_key(kind, candidate)) is master:
            ids.append(candidate)
    return ids


# -- the dealer's record ------------------------------------------------------------------


@pytest.fixture
def dealers(cluster: LocalRedisCluster, tmp_path: Path) -> Iterator[list[ServiceProcess]]:
    """Two dealer replicas (one dealer key) on the cluster, each waiting for one replica."""
    env = {
        "CROUPIER_AUTH_KEY": KEY,
        "REDIS_CLUSTER_NODES": cluster.seed_nodes,
        "CROUPIER_DEALER_KEY": uuid.uuid4().hex * 2,
        "CROUPIER_DEALER_WAIT_REPLICAS": "1",
        "CROUPIER_DEALER_WAIT_REPLICAS_MS": "300",
    }
    processes = [
        ServiceProcess("dealer", env, tmp_path / f"dealer-{n}.log").start() for n in range(2)
    ]
    yield processes
    for process in processes:
        process.kill()


@pytest.fixture
def dealer(dealers: list[ServiceProcess]) -> ServiceProcess:
    return dealers[0]


def dealer_stub(process: ServiceProcess) -> tuple[grpc.Channel, dealer_pb2_grpc.DealerServiceStub]:
    token = auth.issue_token(KEY, "table", auth.Role.SERVICE, 600)
    channel = connect(process.address, token)
    return channel, dealer_pb2_grpc.DealerServiceStub(channel)


LAST_REFUSAL = [""]  # what the last unanswered call said (for a timeout's message)


def answered(call: object) -> bool:
    try:
        call()  # type: ignore[operator]
    except grpc.RpcError as error:
        assert error.code() in RETRIED, error
        LAST_REFUSAL[0] = f"{error.code()}: {error.details()}"
        return False
    return True


def last_refusal() -> str:
    return LAST_REFUSAL[0]


def dealt_keys(cluster: LocalRedisCluster, shuffle_ids: list[str]) -> list[str]:
    """The idempotency key of every deal the shuffles' streams hold, in order."""
    client = cluster.client()
    keys: list[str] = []
    try:
        for shuffle_id in shuffle_ids:
            entries = cast(
                list[tuple[bytes, dict[bytes, bytes]]],
                client.xrange(stream_key("shuffle", shuffle_id)),
            )
            for _, fields in entries:
                if fields[b"type"] == events_pb2.CardsDealt.DESCRIPTOR.full_name.encode():
                    keys.append(events_pb2.CardsDealt.FromString(fields[b"data"]).idempotency_key)
    finally:
        client.close()
    return keys


def ready(stub: dealer_pb2_grpc.DealerServiceStub, shuffle_id: str) -> None:
    """Create and seal a shuffle, each sent again (same request, idempotent) until answered."""
    create = dealer_pb2.CreateShuffleRequest(shuffle_id=shuffle_id, deck=STANDARD)
    seal = dealer_pb2.SealRequest(shuffle_id=shuffle_id)
    wait_until(lambda: answered(lambda: stub.CreateShuffle(create, timeout=10)), 90, "created")
    wait_until(lambda: answered(lambda: stub.Seal(seal, timeout=10)), 90, "sealed")


def deal(key: str, shuffle_id: str) -> dealer_pb2.DealRequest:
    return dealer_pb2.DealRequest(shuffle_id=shuffle_id, count=1, purpose=HOLE, idempotency_key=key)


def test_a_dealer_master_killed_inside_the_replication_lag_loses_no_acknowledged_deal(
    cluster: LocalRedisCluster, dealer: ServiceProcess
) -> None:
    channel, stub = dealer_stub(dealer)
    master = cluster.master_of(stream_key("shuffle", "probe"))
    pool = on_master(cluster, master, "shuffle", CLIENTS * 4)
    used: list[str] = []
    acknowledged: list[str] = []
    sent_deals = [0]  # Deal calls made, answered or not
    lock = threading.Lock()
    stop = threading.Event()

    refused: list[BaseException] = []  # a deal refused outright ends its client

    def client(number: int) -> None:
        sent = 0
        while not stop.is_set():
            shuffle_id = pool[number * 4 + sent // DEALS_PER_SHUFFLE]
            try:
                if shuffle_id not in used:
                    ready(stub, shuffle_id)
                    with lock:
                        used.append(shuffle_id)
                request = deal(f"c{number}/{sent}", shuffle_id)
                with lock:
                    sent_deals[0] += 1
                if answered(lambda request=request: stub.Deal(request, timeout=10)):
                    with lock:
                        acknowledged.append(request.idempotency_key)
                    sent += 1
                # An unanswered deal is sent again with its key (the same `sent`).
            except (AssertionError, grpc.RpcError) as error:
                refused.append(error)
                return

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: len(acknowledged) >= 30, 60, "deals acknowledged")
        with replica_stopped(cluster, master) as replica:
            # Deals sent after the stop: each one's append is on the master alone.
            at_stop = sent_deals[0]
            wait_until(
                lambda: sent_deals[0] >= at_stop + 2 * CLIENTS,
                30,
                "deals sent while the master's replica is stopped",
            )
            master.kill()
        count = len(acknowledged)
        elect(cluster, master, replica)
        wait_until(
            lambda: len(acknowledged) >= count + 30 or len(refused) == CLIENTS,
            90,
            "deals after the election",
        )
    finally:
        stop.set()
        for thread in threads:
            thread.join(90)
        channel.close()
    recorded = dealt_keys(cluster, used)
    missing = sorted(set(acknowledged) - set(recorded))
    assert missing == [], f"deals acknowledged but lost with the master: {missing[:5]}"
    assert len(recorded) == len(set(recorded)), "a deal recorded twice"
    assert not refused, refused[:3]


def deal_through_a_lost_master(
    cluster: LocalRedisCluster,
    refused_by: list[dealer_pb2_grpc.DealerServiceStub],
    retried_by: dealer_pb2_grpc.DealerServiceStub,
) -> tuple[str, dealer_pb2.DealResponse]:
    """A Deal sent (to each of `refused_by`) while its master's replica is cut off is
    UNAVAILABLE ("not confirmed by 1 replica"); the master dies, the replica is elected, and
    the Deal retried with its key (to `retried_by`) is dealt once. Returns the shuffle and
    the retry's answer."""
    master = cluster.master_of(stream_key("shuffle", "probe"))
    (shuffle_id,) = on_master(cluster, master, "shuffle", 1)
    ready(refused_by[0], shuffle_id)
    request = deal("lag", shuffle_id)
    with replica_stopped(cluster, master) as replica:
        for stub in refused_by:
            with pytest.raises(grpc.RpcError) as info:
                stub.Deal(request, timeout=10)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            assert NOT_CONFIRMED in (info.value.details() or "")
        master.kill()
    elect(cluster, master, replica)
    answers: list[dealer_pb2.DealResponse] = []
    wait_until(
        lambda: answered(lambda: answers.append(retried_by.Deal(request, timeout=10))),
        60,
        "the deal retried with its key",
        last_refusal,
    )
    assert dealt_keys(cluster, [shuffle_id]) == ["lag"]
    return shuffle_id, answers[-1]


def test_no_deal_is_acknowledged_while_no_replica_has_it(
    cluster: LocalRedisCluster, dealer: ServiceProcess
) -> None:
    channel, stub = dealer_stub(dealer)
    try:
        shuffle_id, answer = deal_through_a_lost_master(cluster, [stub], stub)
        # The record a table reads back (once closed) holds the cards the retry answered.
        stub.Close(dealer_pb2.CloseRequest(shuffle_id=shuffle_id), timeout=10)
        shuffle = stub.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=shuffle_id)).shuffle
        recorded = [c for step in shuffle.steps if step.HasField("deal") for c in step.deal.cards]
        assert recorded == list(answer.cards)
    finally:
        channel.close()


def test_a_deal_retried_on_another_dealer_replica_waits_for_the_replica_too(
    cluster: LocalRedisCluster, dealers: list[ServiceProcess]
) -> None:
    """The second replica finds the deal in the stream (it never cached the shuffle) and
    answers from what it read: that is acknowledged only once a replica has it as well."""
    (channel, first), (other, second) = dealer_stub(dealers[0]), dealer_stub(dealers[1])
    try:
        shuffle_id, answer = deal_through_a_lost_master(cluster, [first, second], second)
        assert first.Deal(deal("lag", shuffle_id), timeout=10).cards == answer.cards
    finally:
        channel.close()
        other.close()


# -- the table's stream -------------------------------------------------------------------


@pytest.fixture
def waiting(cluster: LocalRedisCluster) -> Iterator[ClusterPlatform]:
    """The ledger, the dealer and a table instance, each waiting for one replica."""
    with platform_on(cluster, replica_ack=ReplicaAck(1, 300)) as handle:
        yield handle


class Stop(Exception):
    """Ends a game played in a thread."""


class CountingActs:
    """A player's stub that counts the Act calls made through it, answered or not."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub, count: list[int]) -> None:
        self._stub = stub
        self._count = count

    def __getattr__(self, name: str) -> object:
        return getattr(self._stub, name)

    def Act(self, *args: Any, **kwargs: Any) -> table_pb2.ActResponse:  # noqa: N802
        self._count[0] += 1
        return self._stub.Act(*args, **kwargs)


def test_a_table_master_killed_inside_the_replication_lag_loses_no_acknowledged_act(
    waiting: ClusterPlatform,
) -> None:
    cluster, platform = waiting.cluster, waiting.platform
    table_id = table_on_another_master(cluster, waiting.ledger_namespace)
    stream = stream_key("table", table_id)
    master = cluster.master_of(stream)
    sent_acts = [0]
    stubs = {
        seat: cast(table_pb2_grpc.TableServiceStub, CountingActs(stub, sent_acts))
        for seat, stub in heads_up(platform, table_id).items()
    }
    acknowledged: dict[str, int] = {}
    stop = threading.Event()
    failure: list[BaseException] = []
    moves = [0]
    cut: list[tuple[EmbeddedRedis, int]] = []  # the replica cut off, and its pid
    at_cut = [0]

    def between_moves() -> None:
        if stop.is_set():
            raise Stop
        moves[0] += 1
        if moves[0] == 6:
            # Right before an act: that act's append is on the master alone.
            at_cut[0] = sent_acts[0]
            cut.append(cut_off(cluster, master))

    def play() -> None:
        try:
            play_until_hand(
                platform,
                table_id,
                stubs,
                hand=1000,
                timeout_s=240,
                acknowledged=acknowledged,
                between_moves=between_moves,
            )
        except Stop:
            pass
        except BaseException as error:  # (reported by the test's thread)
            if not stop.is_set():  # (a read the game makes while the master dies may fail)
                failure.append(error)

    player = threading.Thread(target=play)
    player.start()
    try:
        wait_until(
            lambda: (bool(cut) and sent_acts[0] > at_cut[0]) or bool(failure),
            60,
            "an act sent while the master's replica is cut off",
        )
        # The game ends at its next move: a lost act is not played again under the same
        # key (the stream would then hold it again, and the loss would not show).
        stop.set()
        if cut:
            master.kill()
            replica, pid = cut[0]
            resume(pid)
            elect(cluster, master, replica)
    finally:
        stop.set()
        for _, pid in cut:
            resume(pid)
        player.join(240)
    assert not failure, failure
    check_acknowledged_and_once(cluster, table_id, acknowledged)


def test_no_table_act_is_acknowledged_while_no_replica_has_it(waiting: ClusterPlatform) -> None:
    cluster, platform = waiting.cluster, waiting.platform
    table_id = table_on_another_master(cluster, waiting.ledger_namespace)
    stream = stream_key("table", table_id)
    master = cluster.master_of(stream)
    stubs = heads_up(platform, table_id)
    house = platform.table("house", auth.Role.ADMIN)

    def to_act() -> table_pb2.TableView | None:
        view = view_of(house, table_id)
        return view if view.hand_in_progress and view.to_act >= 0 else None

    wait_until(lambda: to_act() is not None, 60, "a seat to act")
    view = cast(table_pb2.TableView, to_act())
    stub = stubs[view.to_act]
    action, amount, cards = passive_action(view_of(stub, table_id))
    key = f"{table_id}-lag"
    # A second table instance: it loads the table from the stream, finds the act's key
    # there and answers the retry from it; that waits for the replica too.
    player = ("alice" if view.to_act == 0 else "bob") + f"-{table_id}"
    other = platform.table(player, port=waiting.start_table())
    with replica_stopped(cluster, master) as replica:
        for instance in (stub, other):
            with pytest.raises(grpc.RpcError) as info:
                act(instance, table_id, view.hand_number, action, amount, cards, key=key)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            assert NOT_CONFIRMED in (info.value.details() or "")
        master.kill()
    elect(cluster, master, replica)
    answers: list[table_pb2.ActResponse] = []

    def retried() -> bool:
        return answered(
            lambda: answers.append(
                act(stub, table_id, view.hand_number, action, amount, cards, key=key)
            )
        )

    wait_until(retried, 90, "the act retried with its key", last_refusal)
    check_acknowledged_and_once(cluster, table_id, {key: answers[-1].version})
