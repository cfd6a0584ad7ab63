"""Composition root: wire Redis, the store, the application and the servicer."""

from __future__ import annotations

import logging
import threading
import time

import grpc

from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger.application import LedgerApplication
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.servicer import LedgerServicer
from services.ledger.settings import LedgerSettings
from services.shared.grpc_server import ServiceSpec
from services.shared.redis_connection import SyncClient, sync_client

log = logging.getLogger(__name__)

SERVICE_NAME = ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"].full_name


def shard_namespace(namespace: str, shard: int, shards: int) -> str:
    """The hash tag of one shard: `{ledger:<ns>}` unsharded (the keys of an unsharded
    ledger), `{ledger:<ns>.s<n>}` for shard n of several."""
    return namespace if shards == 1 else f"{namespace}.s{shard}"


def start_recovery(
    application: LedgerApplication, interval_ms: int, stop: threading.Event | None = None
) -> threading.Thread:
    """The recovery sweep of a sharded ledger, in every replica: finish each transfer
    pending for more than `interval_ms` (its process died between the steps, or is slow).
    Runs until `stop` is set (never, in a service process: it ends with the process)."""
    stopped = stop or threading.Event()

    def sweep() -> None:
        while not stopped.wait(interval_ms / 1000):
            try:
                application.recover(interval_ms, int(time.time() * 1000))
            except Exception:  # a Redis outage: the next sweep retries
                log.warning("ledger recovery sweep failed; retrying", exc_info=True)

    thread = threading.Thread(target=sweep, name="ledger-recovery", daemon=True)
    thread.start()
    return thread


def build(
    settings: LedgerSettings,
    client: SyncClient | None = None,
    *,
    recovery_stop: threading.Event | None = None,
) -> ServiceSpec:
    """The ledger's ServiceSpec; `client` overrides the Redis connection (tests), and
    `recovery_stop` stops a sharded ledger's recovery sweep when set (tests)."""
    client = client or sync_client(settings.redis)
    stores = [
        RedisLedgerStore(
            client,
            namespace=shard_namespace(settings.namespace, shard, settings.shards),
            shard=shard,
            idempotency_ttl_seconds=settings.idempotency_ttl_hours * 3600,
            durability=settings.durability,
            replica_ack=settings.replica_ack,
        )
        for shard in range(settings.shards)
    ]
    application = LedgerApplication(
        stores, concurrency=settings.concurrency, cashier_limit=settings.cashier_limit
    )
    if settings.shards > 1:
        start_recovery(application, settings.recovery_ms, recovery_stop)

    def register(server: grpc.Server) -> None:
        ledger_pb2_grpc.add_LedgerServiceServicer_to_server(LedgerServicer(application), server)

    return ServiceSpec(name="ledger", register=register, service_names=[SERVICE_NAME])
