"""A ledger that waits for its master's replica (CROUPIER_LEDGER_WAIT_REPLICAS=1) on a real
3-master Redis Cluster loses nothing it acknowledged when the master is SIGKILLed inside the
replication lag: writes keep coming from eight clients while the master dies (no waiting
for the replica to catch up first), and after the election every acknowledged transfer is
in the journal, once; and while the replica is stopped nothing is acknowledged at all
(UNAVAILABLE, retried with its key once the replica is elected: applied once). A master
without a replica acknowledges nothing: the killed master is restarted, and rejoins as
the new master's replica.
"""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import grpc
import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import stream_key
from tests.fixtures.conditions import wait_until
from tests.fixtures.redis_cluster import LocalRedisCluster
from tests.fixtures.service_process import ServiceProcess

pytestmark = pytest.mark.integration

KEY = "ledger-replica-ack-signing-key-0123456789abcdef"
PLAYERS = [f"player:w{n}:CHIP" for n in range(8)]


@pytest.fixture
def cluster(redis_cluster: LocalRedisCluster) -> LocalRedisCluster:
    for node in redis_cluster.nodes:
        if not node.running:
            node.restart()
    redis_cluster.wait_healthy()
    return redis_cluster


@pytest.fixture
def ledger(cluster: LocalRedisCluster, tmp_path: Path) -> Iterator[tuple[ServiceProcess, str]]:
    namespace = f"ack{uuid.uuid4().hex[:8]}"
    env = {
        "CROUPIER_AUTH_KEY": KEY,
        "REDIS_CLUSTER_NODES": cluster.seed_nodes,
        "CROUPIER_LEDGER_NAMESPACE": namespace,
        "CROUPIER_LEDGER_WAIT_REPLICAS": "1",
        "CROUPIER_LEDGER_WAIT_REPLICAS_MS": "300",
    }
    process = ServiceProcess("ledger", env, tmp_path / "ledger.log").start()
    yield process, namespace
    process.kill()


def stub_of(process: ServiceProcess) -> tuple[grpc.Channel, ledger_pb2_grpc.LedgerServiceStub]:
    token = auth.issue_token(KEY, "table-service", auth.Role.SERVICE, 600)
    channel = connect(process.address, token)
    return channel, ledger_pb2_grpc.LedgerServiceStub(channel)


def chips(amount: int) -> chips_pb2.ChipAmount:
    return chips_pb2.ChipAmount(currency="CHIP", amount=amount)


def transfer(key: str, source: str, target: str) -> ledger_pb2.TransferRequest:
    return ledger_pb2.TransferRequest(
        idempotency_key=key,
        legs=[
            ledger_pb2.Leg(account_id=source, side=ledger_pb2.LEG_SIDE_DEBIT, amount=chips(1)),
            ledger_pb2.Leg(account_id=target, side=ledger_pb2.LEG_SIDE_CREDIT, amount=chips(1)),
        ],
    )


def fund(stub: ledger_pb2_grpc.LedgerServiceStub) -> None:
    for account_id in PLAYERS:
        name = account_id.split(":")[1]
        stub.OpenAccount(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=name, currency="CHIP"
            ),
            timeout=10,
        )
        stub.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=f"fund/{name}", account_id=account_id, amount=chips(10_000)
            ),
            timeout=10,
        )


def pid_of(node: object) -> int:
    client = redis.Redis(host=node.host, port=node.port)  # type: ignore[attr-defined]
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def journal_keys(cluster: LocalRedisCluster, namespace: str) -> list[str]:
    """The idempotency key of every event in the ledger's journal, in order."""
    client = cluster.client()
    try:
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]], client.xrange(stream_key("ledger", namespace))
        )
        return [fields[b"idem"].decode() for _, fields in entries]
    finally:
        client.close()


def answered(stub: ledger_pb2_grpc.LedgerServiceStub, request: ledger_pb2.TransferRequest) -> bool:
    try:
        stub.Transfer(request, timeout=10)
    except grpc.RpcError as error:
        assert error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        return False
    return True


def test_a_master_killed_inside_the_replication_lag_loses_nothing_acknowledged(
    cluster: LocalRedisCluster, ledger: tuple[ServiceProcess, str]
) -> None:
    process, namespace = ledger
    channel, stub = stub_of(process)
    try:
        fund(stub)
        master = cluster.master_of(stream_key("ledger", namespace))
        acknowledged: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def client(number: int) -> None:
            sent = 0
            while not stop.is_set():
                key = f"c{number}/{sent}"
                request = transfer(key, PLAYERS[number], PLAYERS[(number + 1) % 8])
                if answered(stub, request):
                    with lock:
                        acknowledged.append(key)
                    sent += 1
                # An unanswered one is sent again with its key (the same `sent`).

        threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        try:
            wait_until(lambda: len(acknowledged) >= 40, 60, "transfers acknowledged")
            # Writes in flight: the master dies inside the lag, its replica not waited for.
            cluster.kill_master(master)
            count = len(acknowledged)
            # The elected replica has no replica of its own: nothing is acknowledged until
            # the old master rejoins as one (durability over availability, by design).
            master.restart()
            wait_until(lambda: len(acknowledged) >= count + 40, 60, "transfers after election")
        finally:
            stop.set()
            for thread in threads:
                thread.join(60)
        in_journal = journal_keys(cluster, namespace)
        missing = [key for key in acknowledged if key not in set(in_journal)]
        assert missing == [], f"acknowledged but lost with the master: {missing[:5]}"
        transfers = [key for key in in_journal if key.startswith("c")]
        assert len(transfers) == len(set(transfers)), "a transfer applied twice"
        report = stub.Audit(ledger_pb2.AuditRequest(), timeout=30)
        assert report.clean, report.differences
    finally:
        channel.close()


def test_nothing_is_acknowledged_while_no_replica_has_it(
    cluster: LocalRedisCluster, ledger: tuple[ServiceProcess, str]
) -> None:
    process, namespace = ledger
    channel, stub = stub_of(process)
    try:
        fund(stub)
        master = cluster.master_of(stream_key("ledger", namespace))
        replica = cluster.replicas_of(master)[0]
        pid = pid_of(replica)
        request = transfer("lag", PLAYERS[0], PLAYERS[1])
        os.kill(pid, signal.SIGSTOP)
        try:
            with pytest.raises(grpc.RpcError) as info:
                stub.Transfer(request, timeout=10)
            assert info.value.code() is grpc.StatusCode.UNAVAILABLE
            assert "not confirmed by 1 replica" in (info.value.details() or "")
            master.kill()
        finally:
            os.kill(pid, signal.SIGCONT)
        wait_until(lambda: cluster.role(replica) == "master", 30, "the replica elected")
        master.restart()  # back as the new master's replica: acknowledgements resume
        cluster.wait_healthy()
        wait_until(lambda: answered(stub, request), 60, "the transfer retried with its key")
        assert journal_keys(cluster, namespace).count("lag") == 1
        balance = stub.GetBalance(
            ledger_pb2.GetBalanceRequest(account_id=PLAYERS[1]), timeout=10
        ).balance.balance
        assert balance == 10_001
        assert stub.Audit(ledger_pb2.AuditRequest(), timeout=30).clean
    finally:
        channel.close()
