"""Where a service's Redis is: its own URL, else the cluster, else REDIS_URL; a cluster that
is failing over is UNAVAILABLE with a message saying so."""

from __future__ import annotations

import pytest
import redis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster
from redis.exceptions import ClusterDownError, RedisClusterException, TryAgainError

from services.dealer.settings import DealerSettings
from services.ledger.settings import LedgerSettings
from services.shared.errors import ErrorKind, Unavailable
from services.shared.redis_connection import (
    RedisTarget,
    async_client,
    resolve,
    single_url,
    storage_errors_as_unavailable,
    sync_client,
)
from services.shared.settings import SettingsError
from services.workers.settings import WorkerSettings

CLUSTER = {"REDIS_CLUSTER_NODES": "10.0.0.1:7000, 10.0.0.2:7001", "REDIS_URL": "redis://r:1/0"}


def test_a_service_url_wins_over_the_cluster_and_the_shared_url() -> None:
    target = resolve("table", {**CLUSTER, "CROUPIER_TABLE_REDIS_URL": "redis://own:2/0"})
    assert target == RedisTarget(url="redis://own:2/0", source="CROUPIER_TABLE_REDIS_URL")


def test_the_cluster_wins_over_the_shared_url() -> None:
    target = resolve("ledger", CLUSTER)
    assert target.cluster
    assert target.nodes == (("10.0.0.1", 7000), ("10.0.0.2", 7001))


def test_the_shared_url_is_the_last_resort() -> None:
    assert resolve("dealer", {"REDIS_URL": "redis://r:1/0"}).url == "redis://r:1/0"


def test_no_redis_at_all_names_every_way_to_set_one() -> None:
    with pytest.raises(SettingsError) as error:
        resolve("ledger", {})
    assert "CROUPIER_LEDGER_REDIS_URL" in str(error.value)
    assert "REDIS_CLUSTER_NODES" in str(error.value)


@pytest.mark.parametrize("nodes", ["10.0.0.1", "10.0.0.1:port", "a:70000", " , "])
def test_a_malformed_node_list_stops_start_up_naming_the_entry(nodes: str) -> None:
    with pytest.raises(SettingsError, match="REDIS_CLUSTER_NODES"):
        resolve("table", {"REDIS_CLUSTER_NODES": nodes})


def test_services_read_their_redis_through_the_one_resolver() -> None:
    ledger = LedgerSettings.from_env({"REDIS_CLUSTER_NODES": "127.0.0.1:7000"})
    assert ledger.redis == RedisTarget(nodes=(("127.0.0.1", 7000),))
    dealer = DealerSettings.from_env(
        {
            "REDIS_URL": "redis://r:1/0",
            "CROUPIER_DEALER_KEY": "00" * 32,
            "CROUPIER_AUTH_KEY": "k" * 32,
        }
    )
    assert dealer.redis.url == "redis://r:1/0" and not dealer.redis.cluster


def test_the_clients_are_cluster_clients_for_a_cluster() -> None:
    target = RedisTarget(nodes=(("127.0.0.1", 1),))
    # (construction connects lazily for the asyncio client, eagerly for the sync one)
    with pytest.raises(RedisClusterException, match="cannot be connected"):
        sync_client(target, socket_connect_timeout=0.2)
    assert isinstance(async_client(target), AsyncRedisCluster)
    assert not isinstance(sync_client(RedisTarget(url="redis://127.0.0.1:1/0")), RedisCluster)


def test_the_workers_need_a_single_redis_for_celery() -> None:
    assert single_url("workers", CLUSTER) == "redis://r:1/0"
    assert single_url("workers", {"REDIS_CLUSTER_NODES": "h:1"}) == ""
    with pytest.raises(ValueError, match="Celery"):
        WorkerSettings.from_env({"REDIS_CLUSTER_NODES": "h:1"})


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (ClusterDownError("CLUSTERDOWN The cluster is down"), "CLUSTERDOWN"),
        (TryAgainError("TRYAGAIN"), "TRYAGAIN"),
        (redis.ConnectionError("refused"), "ConnectionError"),
    ],
)
def test_a_lost_or_failing_over_redis_is_unavailable(error: Exception, words: str) -> None:
    with pytest.raises(Unavailable) as raised, storage_errors_as_unavailable("table storage"):
        raise error
    assert raised.value.kind is ErrorKind.UNAVAILABLE
    assert words in raised.value.message and "same idempotency key" in raised.value.message
