"""Composition root: wire Redis, the store, the application and the servicer."""

from __future__ import annotations

import grpc

from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger.application import LedgerApplication
from services.ledger.redis_store import RedisLedgerStore
from services.ledger.servicer import LedgerServicer
from services.ledger.settings import LedgerSettings
from services.shared.grpc_server import ServiceSpec
from services.shared.redis_connection import SyncClient, sync_client

SERVICE_NAME = ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"].full_name


def build(settings: LedgerSettings, client: SyncClient | None = None) -> ServiceSpec:
    """The ledger's ServiceSpec; `client` overrides the Redis connection (tests)."""
    client = client or sync_client(settings.redis)
    store = RedisLedgerStore(
        client,
        namespace=settings.namespace,
        idempotency_ttl_seconds=settings.idempotency_ttl_hours * 3600,
        durability=settings.durability,
    )
    application = LedgerApplication(
        store, concurrency=settings.concurrency, cashier_limit=settings.cashier_limit
    )

    def register(server: grpc.Server) -> None:
        ledger_pb2_grpc.add_LedgerServiceServicer_to_server(LedgerServicer(application), server)

    return ServiceSpec(name="ledger", register=register, service_names=[SERVICE_NAME])
