"""Ledger settings from the environment (besides the shared RuntimeSettings).

``CROUPIER_LEDGER_REDIS_URL``   Redis holding the journal and projection (else the Redis
                                Cluster of ``REDIS_CLUSTER_NODES``, else ``REDIS_URL``;
                                required; services/shared/redis_connection.py)
``CROUPIER_LEDGER_NAMESPACE``   hash tag of every ledger key (``ledger`` -> ``{ledger}:journal``)
``CROUPIER_LEDGER_IDEMPOTENCY_TTL_HOURS``  how long keys are remembered (48; at least 24)
``CROUPIER_LEDGER_CONCURRENCY`` ``checked`` (default) or ``serial``; see docs/ledger.md
``CROUPIER_LEDGER_CASHIER_LIMIT``  the development cashier: a player may deposit at most this
                                many chips at a time into their own account (0, the default:
                                off, deposits are the platform's own; `croupier run` sets
                                100000 so a new player can fund themselves; never in production)
``CROUPIER_LEDGER_SHARDS``      how many shards the accounts are spread over (1, the default:
                                one aggregate, one slot; more spreads the ledger over a Redis
                                Cluster's masters and moves chips between shards with the
                                two-phase protocol of docs/ledger.md "Shards"). Fixed for the
                                life of the data: changing it rehomes accounts.
``CROUPIER_LEDGER_RECOVERY_MS`` a sharded ledger's recovery sweep: every this many ms each
                                replica finishes transfers pending for longer (1000)
``CROUPIER_LEDGER_WAIT_REPLICAS``  acknowledge a write only once this many replicas of its
                                master have it (Redis WAIT; 0, the default: do not wait), so a
                                master killed inside the replication lag loses nothing
                                acknowledged; ``CROUPIER_LEDGER_WAIT_REPLICAS_MS`` (500) is how
                                long to wait before answering UNAVAILABLE (retry the same key)
``CROUPIER_DURABILITY``         ``everysec`` (default) or ``strict``: acknowledge a commit only
                                after Redis confirms the AOF fsync (WAITAOF; see
                                docs/eventstore.md)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from services.ledger.store import Concurrency
from services.shared.eventstore import Durability
from services.shared.redis_connection import RedisTarget, resolve
from services.shared.replica_ack import NO_WAIT, ReplicaAck
from services.shared.settings import SettingsError, env_int, env_str

MIN_TTL_HOURS = 24
MAX_SHARDS = 1024
_NAMESPACE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True, slots=True)
class LedgerSettings:
    redis_url: str
    namespace: str = "ledger"
    idempotency_ttl_hours: int = 48
    concurrency: Concurrency = Concurrency.CHECKED
    durability: Durability = "everysec"
    cashier_limit: int = 0
    # A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES): set, they win over `redis_url`.
    redis_nodes: tuple[tuple[str, int], ...] = ()
    shards: int = 1
    recovery_ms: int = 1000
    replica_ack: ReplicaAck = NO_WAIT

    @property
    def redis(self) -> RedisTarget:
        """Where this service's Redis is: one server (`redis_url`) or a cluster's nodes."""
        return RedisTarget(url=self.redis_url, nodes=self.redis_nodes)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LedgerSettings:
        redis = resolve("ledger", env)
        ttl = env_int("CROUPIER_LEDGER_IDEMPOTENCY_TTL_HOURS", 48, env=env)
        if ttl < MIN_TTL_HOURS:
            raise SettingsError(
                f"CROUPIER_LEDGER_IDEMPOTENCY_TTL_HOURS={ttl}: keys must be kept at least"
                f" {MIN_TTL_HOURS} hours"
            )
        mode = env_str("CROUPIER_LEDGER_CONCURRENCY", "checked", env=env)
        try:
            concurrency = Concurrency(mode)
        except ValueError:
            raise SettingsError(
                f"CROUPIER_LEDGER_CONCURRENCY={mode!r}; use 'checked' or 'serial'"
            ) from None
        namespace = env_str("CROUPIER_LEDGER_NAMESPACE", "ledger", env=env)
        if not _NAMESPACE.match(namespace):
            raise SettingsError(
                f"CROUPIER_LEDGER_NAMESPACE={namespace!r}: use letters, digits, '_', '-' or '.'"
            )
        durability = env_str("CROUPIER_DURABILITY", "everysec", env=env).lower()
        if durability not in ("everysec", "strict"):
            raise SettingsError(f"CROUPIER_DURABILITY={durability!r}; use 'everysec' or 'strict'")
        cashier_limit = env_int("CROUPIER_LEDGER_CASHIER_LIMIT", 0, env=env)
        if cashier_limit < 0:
            raise SettingsError(
                f"CROUPIER_LEDGER_CASHIER_LIMIT={cashier_limit}: chips per deposit, 0 for off"
            )
        shards = env_int("CROUPIER_LEDGER_SHARDS", 1, env=env)
        if not 1 <= shards <= MAX_SHARDS:
            raise SettingsError(
                f"CROUPIER_LEDGER_SHARDS={shards}: use 1 (unsharded) to {MAX_SHARDS}"
            )
        recovery_ms = env_int("CROUPIER_LEDGER_RECOVERY_MS", 1000, env=env)
        if recovery_ms < 50:
            raise SettingsError(f"CROUPIER_LEDGER_RECOVERY_MS={recovery_ms}: at least 50")
        replica_ack = ReplicaAck.from_env("CROUPIER_LEDGER", env)
        return cls(
            replica_ack=replica_ack,
            shards=shards,
            recovery_ms=recovery_ms,
            cashier_limit=cashier_limit,
            redis_url=redis.url,
            redis_nodes=redis.nodes,
            namespace=namespace,
            durability="strict" if durability == "strict" else "everysec",
            idempotency_ttl_hours=ttl,
            concurrency=concurrency,
        )
