"""One way to reach Redis: every service builds its clients here, for a single Redis or a
Redis Cluster alike.

Where a service's Redis is, first match wins:

1. ``CROUPIER_<SVC>_REDIS_URL`` (e.g. ``CROUPIER_TABLE_REDIS_URL``): a single Redis for that
   service only (``redis://`` or ``rediss://``);
2. ``REDIS_CLUSTER_NODES``: ``host:port,host:port`` seed nodes of a Redis Cluster, reached with
   redis-py's cluster clients (``redis.cluster.RedisCluster``, ``redis.asyncio.cluster``),
   which discover the other nodes and follow MOVED/ASK redirects and failovers;
3. ``REDIS_URL``: one Redis for every service.

On a cluster every command and script must touch one hash slot: all keys of one aggregate
share its hash tag (``{table:42}:events``, ``{table:42}:version``...; docs/scale-out.md).

`storage_errors_as_unavailable` maps what a lost or failing-over Redis raises (a refused
connection, a timeout, CLUSTERDOWN, TRYAGAIN) to `Unavailable`: the gRPC status UNAVAILABLE,
with a message saying to retry with the same idempotency key.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aioredis
import redis.asyncio.cluster as aiocluster
import redis.cluster
from redis.exceptions import ClusterDownError, TryAgainError

from services.shared.errors import Unavailable, shown
from services.shared.settings import SettingsError, env_prefix, env_str

CLUSTER_NODES_ENV = "REDIS_CLUSTER_NODES"
REDIS_URL_ENV = "REDIS_URL"

SyncClient = redis.Redis | redis.cluster.RedisCluster
AsyncClient = aioredis.Redis | aiocluster.RedisCluster


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """Where one service's Redis is: a URL (a single server) or a cluster's seed nodes."""

    url: str = ""
    nodes: tuple[tuple[str, int], ...] = ()
    # The variable it came from, for messages an operator can act on.
    source: str = REDIS_URL_ENV

    @property
    def cluster(self) -> bool:
        return bool(self.nodes)

    def describe(self) -> str:
        where = ",".join(f"{h}:{p}" for h, p in self.nodes) if self.nodes else self.url
        return f"{'Redis Cluster' if self.nodes else 'Redis'} {where} ({self.source})"


def service_url_env(service: str) -> str:
    """``CROUPIER_<SVC>_REDIS_URL``: the one service's own Redis."""
    return env_prefix(service) + "REDIS_URL"


def parse_nodes(raw: str, source: str = CLUSTER_NODES_ENV) -> tuple[tuple[str, int], ...]:
    """``"10.0.0.1:7000, 10.0.0.2:7000"`` -> ((host, port), ...); a malformed entry stops
    start-up with a message naming it."""
    nodes: list[tuple[str, int]] = []
    for entry in (part.strip() for part in raw.split(",")):
        if not entry:
            continue
        host, sep, port = entry.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise SettingsError(
                f"{source}: {shown(entry)} is not host:port; list the cluster's seed nodes as "
                "host:port,host:port"
            )
        nodes.append((host.strip("[]"), int(port)))
    if not nodes:
        raise SettingsError(f"{source} is set but lists no host:port")
    return tuple(nodes)


def resolve(service: str, env: Mapping[str, str] | None = None) -> RedisTarget:
    """The service's Redis: its own URL, else the cluster, else REDIS_URL (module docstring).
    Neither set stops start-up naming all three."""
    own = service_url_env(service)
    url = env_str(own, env=env)
    if url:
        return RedisTarget(url=url, source=own)
    nodes = env_str(CLUSTER_NODES_ENV, env=env)
    if nodes:
        return RedisTarget(nodes=parse_nodes(nodes), source=CLUSTER_NODES_ENV)
    url = env_str(REDIS_URL_ENV, env=env)
    if url:
        return RedisTarget(url=url, source=REDIS_URL_ENV)
    raise SettingsError(
        f"no Redis for the {service} service: set {own} or REDIS_URL (one Redis) or "
        f"{CLUSTER_NODES_ENV} (host:port,host:port of a Redis Cluster)"
    )


def single_url(service: str, env: Mapping[str, str] | None = None) -> str:
    """The URL of a single Redis, for what cannot run on a cluster (Celery's broker, whose
    Redis transport has no cluster client): the service's own URL, else REDIS_URL, else ""."""
    return env_str(service_url_env(service), env=env) or env_str(REDIS_URL_ENV, env=env)


# Why the workers' Redis is one server, for the message when none is set.
WORKERS_SINGLE_REDIS = (
    "CROUPIER_WORKERS_REDIS_URL or REDIS_URL is required: the single Redis the Celery broker "
    "and the workers' indexes run on (Celery's Redis transport has no Redis Cluster client, "
    "so REDIS_CLUSTER_NODES alone is not enough)"
)


def sync_client(target: RedisTarget, **options: Any) -> SyncClient:
    """A redis-py client for `target`; `options` go to the client (max_connections,
    socket_timeout...)."""
    if target.cluster:
        return redis.cluster.RedisCluster(
            # (redis-py leaves ClusterNode unannotated)
            startup_nodes=[redis.cluster.ClusterNode(h, p) for h, p in target.nodes],  # type: ignore[no-untyped-call]
            **options,
        )
    return redis.Redis.from_url(target.url, **options)


def async_client(target: RedisTarget, **options: Any) -> AsyncClient:
    """A redis.asyncio client for `target` (the table's moves on the event loop)."""
    if target.cluster:
        return aiocluster.RedisCluster(
            startup_nodes=[aiocluster.ClusterNode(h, p) for h, p in target.nodes], **options
        )
    return aioredis.Redis.from_url(target.url, **options)


def connect_sync(service: str, env: Mapping[str, str] | None = None, **options: Any) -> SyncClient:
    return sync_client(resolve(service, env), **options)


# What a Redis that is down, restarting, loading its AOF or failing over raises.
STORAGE_DOWN: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    ClusterDownError,
    TryAgainError,
    redis.exceptions.BusyLoadingError,
)


def storage_down_reason(exc: BaseException) -> str:
    """What a storage error means, in words: the error's class, or the cluster's state."""
    if isinstance(exc, ClusterDownError):
        return "CLUSTERDOWN: the Redis Cluster has slots without a master (failing over)"
    if isinstance(exc, TryAgainError):
        return "TRYAGAIN: the Redis Cluster is moving a slot"
    return type(exc).__name__


def unavailable(what: str, exc: BaseException) -> Unavailable:
    """The `Unavailable` for a storage error: what failed, why and what to do."""
    return Unavailable(
        f"{what} unreachable ({storage_down_reason(exc)}); retry with the same idempotency key"
    )


@contextlib.contextmanager
def storage_errors_as_unavailable(what: str) -> Iterator[None]:
    """Inside: a lost Redis or a cluster failing over is `Unavailable` (UNAVAILABLE)."""
    try:
        yield
    except STORAGE_DOWN as exc:
        raise unavailable(what, exc) from exc
