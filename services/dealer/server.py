"""Composition root: wire Redis, the event store, the seed cipher and the servicer."""

from __future__ import annotations

import grpc

from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from services.dealer.application import DealerApplication, register_events
from services.dealer.seed_cipher import SeedCipher
from services.dealer.servicer import DealerServicer
from services.dealer.settings import DealerSettings
from services.shared.eventstore import EventRegistry, EventStore, RedisEventStore
from services.shared.grpc_server import ServiceSpec
from services.shared.redis_connection import sync_client

SERVICE_NAME = dealer_pb2.DESCRIPTOR.services_by_name["DealerService"].full_name


def build_application(
    settings: DealerSettings, store: EventStore | None = None
) -> DealerApplication:
    if store is None:
        client = sync_client(settings.redis)
        store = RedisEventStore(
            client, register_events(EventRegistry()), replica_ack=settings.replica_ack
        )
    return DealerApplication(
        store,
        SeedCipher(settings.dealer_key),
        allow_test_decks=settings.allow_test_decks,
        tables=settings.tables,
    )


def build(settings: DealerSettings, store: EventStore | None = None) -> ServiceSpec:
    servicer = DealerServicer(build_application(settings, store))

    def register(server: grpc.Server) -> None:
        dealer_pb2_grpc.add_DealerServiceServicer_to_server(servicer, server)

    return ServiceSpec(name="dealer", register=register, service_names=[SERVICE_NAME])
