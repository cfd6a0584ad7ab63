"""Table-service settings from the environment (besides the shared RuntimeSettings).

``CROUPIER_DEALER_TARGET``     address of the dealer service (required)
``CROUPIER_EVALUATOR_TARGET``  address of the evaluator service (required)
``CROUPIER_LEDGER_TARGET``     address of the ledger service (required)
``CROUPIER_TABLE_REDIS_URL``   Redis holding the table streams (else the Redis Cluster of
                               ``REDIS_CLUSTER_NODES``, else ``REDIS_URL``; required;
                               services/shared/redis_connection.py)
``CROUPIER_TABLE_RANKER``      ``library`` (default: the evaluator's ranking library in
                               process, behind the engine's ranking port) or ``evaluator``
                               (one Showdown RPC per showdown)
``CROUPIER_TABLE_VOID_AFTER_S`` seconds a hand may stay stuck on a dependency that is down
                               (dealer, ledger) before it is voided with every stake
                               returned (30)
``CROUPIER_TABLE_RECOVERY_GRACE_S`` seconds after an instance last wrote a table before any
                               instance's recovery sweep finishes the table's pending steps
                               and sends its triggers again (5)
``CROUPIER_TABLE_RECOVERY_INTERVAL_S`` seconds between two recovery sweeps (1)
``CROUPIER_TABLE_ATTENTION_KEY`` the Redis sorted set of tables being written
                               (``croupier:table:attention``; one per deployment)
``CROUPIER_TABLE_ENTROPY_COMMIT_MS`` how long a round that is next waits for its seated
                               players' entropy commitments at most (400; docs/dealer.md)
``CROUPIER_TABLE_ENTROPY_REVEAL_MS`` how long it then waits for the committed entropies (400);
``CROUPIER_TABLE_IDLE_SHUFFLES_S`` how long a table waits between rounds before it withdraws,
closes and reveals the shuffles it announced ahead (600; 0 never);
                               a player who does not answer in time is left out
``CROUPIER_TABLE_MAX_BOT_CHIPS`` most chips of the house the bots requested at one table may
                               bring in all (10,000,000)
``CROUPIER_TABLE_WAIT_REPLICAS`` acknowledge a table's append only once this many replicas of
                               its master have it (Redis WAIT; 0, the default: do not wait),
                               so a master killed inside the replication lag loses no
                               acknowledged event; ``CROUPIER_TABLE_WAIT_REPLICAS_MS`` (500) is
                               how long to wait before answering UNAVAILABLE (retry the same key)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.shared.redis_connection import RedisTarget, resolve
from services.shared.replica_ack import NO_WAIT, ReplicaAck
from services.shared.settings import (
    SettingsError,
    env_float,
    env_int,
    env_str,
    require_env,
    target_env_name,
)
from services.table.attention import DEFAULT_KEY as DEFAULT_ATTENTION_KEY
from services.table.bot_requests import MAX_BOT_CHIPS_PER_TABLE
from services.table.entropy_window import EntropyTiming

RANKERS = ("library", "evaluator")


@dataclass(frozen=True, slots=True)
class TableSettings:
    dealer_target: str
    evaluator_target: str
    ledger_target: str
    redis_url: str
    ranker: str = "library"
    void_after_s: float = 30.0
    recovery_grace_s: float = 5.0
    recovery_interval_s: float = 1.0
    attention_key: str = DEFAULT_ATTENTION_KEY
    max_bot_chips_per_table: int = MAX_BOT_CHIPS_PER_TABLE
    # A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES): set, they win over `redis_url`.
    redis_nodes: tuple[tuple[str, int], ...] = ()
    entropy_commit_ms: int = 400
    entropy_reveal_ms: int = 400
    # Announced shuffles of a table idle between rounds this long are withdrawn, closed and
    # revealed (0: never).
    idle_shuffles_s: float = 600.0
    # Acknowledge a table's append only once that many replicas of its master have it.
    replica_ack: ReplicaAck = NO_WAIT

    @property
    def redis(self) -> RedisTarget:
        """Where this service's Redis is: one server (`redis_url`) or a cluster's nodes."""
        return RedisTarget(url=self.redis_url, nodes=self.redis_nodes)

    @property
    def entropy_timing(self) -> EntropyTiming:
        return EntropyTiming(self.entropy_commit_ms, self.entropy_reveal_ms)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TableSettings:
        def target(name: str, purpose: str) -> str:
            return require_env(target_env_name(name), purpose, env=env)

        ranker = env_str("CROUPIER_TABLE_RANKER", "library", env=env)
        if ranker not in RANKERS:
            raise SettingsError(
                f"CROUPIER_TABLE_RANKER={ranker!r}; use one of {', '.join(RANKERS)}"
            )
        redis = resolve("table", env)
        return cls(
            dealer_target=target(
                "dealer", "address of the dealer service the table asks for cards"
            ),
            evaluator_target=target(
                "evaluator", "address of the evaluator service that ranks showdown hands"
            ),
            ledger_target=target("ledger", "address of the ledger service that moves the chips"),
            redis_url=redis.url,
            redis_nodes=redis.nodes,
            ranker=ranker,
            void_after_s=env_float("CROUPIER_TABLE_VOID_AFTER_S", 30.0, env=env),
            recovery_grace_s=env_float("CROUPIER_TABLE_RECOVERY_GRACE_S", 5.0, env=env),
            recovery_interval_s=env_float("CROUPIER_TABLE_RECOVERY_INTERVAL_S", 1.0, env=env),
            attention_key=env_str("CROUPIER_TABLE_ATTENTION_KEY", DEFAULT_ATTENTION_KEY, env=env),
            max_bot_chips_per_table=env_int(
                "CROUPIER_TABLE_MAX_BOT_CHIPS", MAX_BOT_CHIPS_PER_TABLE, env=env
            ),
            entropy_commit_ms=_window("CROUPIER_TABLE_ENTROPY_COMMIT_MS", env),
            entropy_reveal_ms=_window("CROUPIER_TABLE_ENTROPY_REVEAL_MS", env),
            idle_shuffles_s=env_float("CROUPIER_TABLE_IDLE_SHUFFLES_S", 600.0, env=env),
            replica_ack=ReplicaAck.from_env("CROUPIER_TABLE", env),
        )


def _window(name: str, env: Mapping[str, str] | None) -> int:
    value = env_int(name, 400, env=env)
    if not 0 <= value <= 60_000:
        raise SettingsError(f"{name}={value}: use 0..60000 milliseconds")
    return value
