"""strict durability (WAITAOF after each append) is refused on a Redis Cluster, sync and
asyncio alike: the wait would go out on a connection the cluster client picks, not the one
that wrote, and confirm nothing."""

from __future__ import annotations

import pytest
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster

from services.shared.eventstore import EventRegistry, RedisEventStore
from services.shared.eventstore.aio_redis_store import AsyncRedisEventStore
from tests.fixtures.redis_cluster import LocalRedisCluster

pytestmark = pytest.mark.integration


def test_strict_durability_is_refused_on_a_cluster(redis_cluster: LocalRedisCluster) -> None:
    client = redis_cluster.client()
    try:
        with pytest.raises(RuntimeError, match="needs a single Redis"):
            RedisEventStore(client, EventRegistry(), durability="strict")
        host, port = redis_cluster.node_tuples[0]
        with pytest.raises(RuntimeError, match="needs a single Redis"):
            AsyncRedisEventStore(
                AsyncRedisCluster(host=host, port=port), EventRegistry(), durability="strict"
            )
        assert RedisEventStore(client, EventRegistry(), durability="everysec").cluster
    finally:
        client.close()
