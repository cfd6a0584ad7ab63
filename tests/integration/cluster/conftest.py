"""The platform on a real Redis Cluster: 3 masters with a replica each on loopback, and the
real ledger, dealer and table services (gRPC on port 0) reaching it the way production does,
through services/shared/redis_connection.py from REDIS_CLUSTER_NODES-shaped settings."""

from __future__ import annotations

import contextlib
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc
import pytest

from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.ledger.server import build as build_ledger
from services.ledger.settings import LedgerSettings
from services.shared.grpc_server import create_server
from services.shared.replica_ack import NO_WAIT, ReplicaAck
from services.shared.settings import RuntimeSettings
from services.table.server import build_aio
from services.table.settings import TableSettings
from tests.fixtures.aio_server_thread import AioServerThread
from tests.fixtures.redis_cluster import LocalRedisCluster, start_local_cluster
from tests.integration.table.conftest import KEY, Platform


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalRedisCluster]:
    cluster = start_local_cluster(masters=3, replicas=1)
    yield cluster
    cluster.close()


@dataclass
class ClusterPlatform:
    """The services on the cluster; `platform` speaks to the first table instance."""

    cluster: LocalRedisCluster
    platform: Platform
    ledger_namespace: str
    start_table: Callable[[], int]
    # Stop the n-th table instance (0: the first), no grace for calls in flight.
    stop_table: Callable[[int], None]
    table_ports: list[int] = field(default_factory=list)


@pytest.fixture
def on_cluster(
    request: pytest.FixtureRequest, redis_cluster: LocalRedisCluster
) -> Iterator[ClusterPlatform]:
    """The platform on the cluster; an indirect parameter sets the ledger's shard count
    (1 unless given)."""
    with platform_on(redis_cluster, int(getattr(request, "param", 1))) as handle:
        yield handle


@contextlib.contextmanager
def platform_on(
    redis_cluster: LocalRedisCluster, ledger_shards: int = 1, replica_ack: ReplicaAck = NO_WAIT
) -> Iterator[ClusterPlatform]:
    """The ledger, the dealer and a table instance on the cluster, every one of them waiting
    for `replica_ack` replicas before acknowledging a write."""
    redis_cluster.wait_healthy()
    stop_recovery = threading.Event()
    nodes = redis_cluster.node_tuples
    namespace = f"ledger-{uuid.uuid4().hex[:8]}"

    def runtime(name: str) -> RuntimeSettings:
        return RuntimeSettings(service_name=name, address="127.0.0.1:0", auth_key=KEY)

    servers: list[grpc.Server] = []
    ledger_server, ledger_port = create_server(
        build_ledger(
            LedgerSettings(
                redis_url="",
                redis_nodes=nodes,
                namespace=namespace,
                shards=ledger_shards,
                recovery_ms=300,
                replica_ack=replica_ack,
            ),
            recovery_stop=stop_recovery,
        ),
        runtime("ledger"),
    )
    servers.append(ledger_server)
    dealer_runtime = runtime("dealer")
    dealer_settings = DealerSettings(
        runtime=dealer_runtime,
        redis_url="",
        redis_nodes=nodes,
        dealer_key=secrets.token_bytes(32),
        replica_ack=replica_ack,
    )
    dealer_server, dealer_port = create_server(build_dealer(dealer_settings), dealer_runtime)
    servers.append(dealer_server)
    settings = TableSettings(
        dealer_target=f"127.0.0.1:{dealer_port}",
        evaluator_target="unused",
        ledger_target=f"127.0.0.1:{ledger_port}",
        redis_url="",
        redis_nodes=nodes,
        void_after_s=5.0,
        attention_key=f"croupier:table:attention:{namespace}",
        replica_ack=replica_ack,
    )
    tables: list[AioServerThread] = []

    def start_table() -> int:
        """One more table-service instance on the same cluster, dealer and ledger."""
        instance = AioServerThread(build_aio(settings, runtime("table")), runtime("table"))
        tables.append(instance)
        handle.table_ports.append(instance.port)
        return instance.port

    def stop_table(number: int) -> None:
        tables[number].stop()

    handle = ClusterPlatform(
        redis_cluster,
        Platform(port=0, ledger_port=ledger_port),
        namespace,
        start_table,
        stop_table,
    )
    handle.platform.port = start_table()
    try:
        yield handle
    finally:
        _stop(handle, tables, servers, stop_recovery)


def _stop(
    handle: ClusterPlatform,
    tables: list[AioServerThread],
    servers: list[grpc.Server],
    stop_recovery: threading.Event,
) -> None:
    for channel in handle.platform.channels:
        channel.close()
    for instance in tables:
        instance.stop()
    for server in servers:
        server.stop(0).wait()
    stop_recovery.set()
