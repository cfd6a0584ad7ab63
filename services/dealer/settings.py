"""Dealer settings from the environment (frozen; read once at start-up).

``CROUPIER_DEALER_KEY``         the dealer key: 32 bytes as 64 hex characters (or urlsafe
                                base64). It encrypts every stored seed; keep it apart from Redis.
``CROUPIER_DEALER_KEY_FILE``    a file holding that key instead (read when the variable above
                                is unset; e.g. a mounted Kubernetes secret).
``CROUPIER_DEALER_ALLOW_TEST_DECKS``  1 lets CreateShuffle take an explicit deck order
                                (scenario tests, hand replays). Never set it in production.
``CROUPIER_DEALER_TABLES``      comma-separated service subjects of the table service
                                (default ``table``): the only callers that may create, seal,
                                deal from, reshuffle or close a shuffle, or relay entropy.
``CROUPIER_DEALER_REDIS_URL``   the Redis holding the shuffle streams (else the Redis Cluster
                                of ``REDIS_CLUSTER_NODES``, else ``REDIS_URL``;
                                services/shared/redis_connection.py).
``CROUPIER_DEALER_WAIT_REPLICAS``  acknowledge a shuffle's append (a deal, a seal, a close)
                                only once this many replicas of its master have it (Redis
                                WAIT; 0, the default: do not wait), so a master killed inside
                                the replication lag loses no acknowledged deal;
                                ``CROUPIER_DEALER_WAIT_REPLICAS_MS`` (500) is how long to wait
                                before answering UNAVAILABLE (retry with the same key).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from services.dealer.seed_cipher import KEY_BYTES
from services.shared.redis_connection import RedisTarget, resolve
from services.shared.replica_ack import NO_WAIT, ReplicaAck
from services.shared.settings import (
    RuntimeSettings,
    SettingsError,
    env_bool,
    env_str,
)

KEY_ENV = "CROUPIER_DEALER_KEY"
KEY_FILE_ENV = "CROUPIER_DEALER_KEY_FILE"
TEST_DECKS_ENV = "CROUPIER_DEALER_ALLOW_TEST_DECKS"
TABLES_ENV = "CROUPIER_DEALER_TABLES"


def parse_dealer_key(text: str, source: str) -> bytes:
    """32 key bytes from hex or urlsafe base64; the error names the source, never the value."""
    text = text.strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        try:
            key = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            key = b""
    if len(key) != KEY_BYTES:
        raise SettingsError(
            f"{source} must hold a {KEY_BYTES}-byte key as 64 hex characters or urlsafe base64 "
            "(generate one with: python -c 'import secrets; print(secrets.token_hex(32))')"
        )
    return key


def load_dealer_key(env: Mapping[str, str] | None = None) -> bytes:
    value = env_str(KEY_ENV, env=env)
    if value:
        return parse_dealer_key(value, KEY_ENV)
    path = env_str(KEY_FILE_ENV, env=env)
    if not path:
        raise SettingsError(
            f"missing {KEY_ENV} or {KEY_FILE_ENV}: the dealer key that encrypts unrevealed seeds"
        )
    try:
        return parse_dealer_key(Path(path).read_text(), f"{KEY_FILE_ENV}={path}")
    except OSError as exc:
        raise SettingsError(f"{KEY_FILE_ENV}={path!r} cannot be read: {exc.strerror}") from exc


@dataclass(frozen=True, slots=True)
class DealerSettings:
    runtime: RuntimeSettings
    redis_url: str
    dealer_key: bytes = field(repr=False)
    allow_test_decks: bool = False
    tables: tuple[str, ...] = ("table",)
    # A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES): set, they win over `redis_url`.
    redis_nodes: tuple[tuple[str, int], ...] = ()
    replica_ack: ReplicaAck = NO_WAIT

    @property
    def redis(self) -> RedisTarget:
        """Where this service's Redis is: one server (`redis_url`) or a cluster's nodes."""
        return RedisTarget(url=self.redis_url, nodes=self.redis_nodes)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> DealerSettings:
        redis = resolve("dealer", env)
        return cls(
            runtime=RuntimeSettings.from_env("dealer", env=env),
            redis_url=redis.url,
            redis_nodes=redis.nodes,
            dealer_key=load_dealer_key(env),
            allow_test_decks=env_bool(TEST_DECKS_ENV, False, env=env),
            tables=_tables(env_str(TABLES_ENV, "table", env=env)),
            replica_ack=ReplicaAck.from_env("CROUPIER_DEALER", env),
        )


def _tables(value: str) -> tuple[str, ...]:
    tables = tuple(name.strip() for name in value.split(",") if name.strip())
    if not tables:
        raise SettingsError(f"{TABLES_ENV} must name at least one table service subject")
    return tables
