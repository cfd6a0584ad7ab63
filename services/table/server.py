"""Composition root: wire Redis, the event store, the dealer/ledger/ranker adapters, the
application and the servicer."""

from __future__ import annotations

import threading

import grpc
import redis

from croupier.table.v1 import table_pb2
from services.games.ranking import HandRanker
from services.shared.channels import RenewingServiceToken, connect
from services.shared.eventstore import EventStore, RedisEventStore
from services.shared.grpc_server import ServiceSpec
from services.shared.settings import RuntimeSettings
from services.table.adapters import GrpcDealer, GrpcLedger, TestDecks
from services.table.application import TableApplication
from services.table.attention import AttentionSet, RedisAttentionSet
from services.table.event_codec import TableCodec
from services.table.games.catalog import CATALOG, GAME_SERVICES
from services.table.ports import DealerPort, NoScheduler, SchedulerPort
from services.table.ranking import ranker_for
from services.table.recovery import RecoverySweep
from services.table.servicer import TableServicer
from services.table.settings import TableSettings
from services.table.watch_wire import add_table_service
from services.table.watching import TableWatcher

REDIS_CONNECTIONS = 2048
SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name


def build(
    settings: TableSettings,
    runtime: RuntimeSettings,
    *,
    store: EventStore | None = None,
    scheduler: SchedulerPort | None = None,
    test_decks: TestDecks | None = None,
    ranker: HandRanker | None = None,
    dealer: DealerPort | None = None,
    attention: AttentionSet | None = None,
) -> ServiceSpec:
    """The table's ServiceSpec; keyword arguments override adapters (tests, benchmarks)."""
    # The adapters send the service token as call metadata on plain channels (an intercepted
    # channel costs more CPU per call; see adapters.py).
    token = RenewingServiceToken(runtime.credentials, runtime.service_name)

    def channel(target: str) -> grpc.Channel:
        return connect(target, tls=runtime.tls, max_message_bytes=runtime.max_message_bytes)

    # A ceiling, not an allocation: the pool opens connections as concurrent calls need them.
    # (WatchTable streams hold none each: one blocking read serves every watched table,
    # fanout.py.)
    client = redis.Redis.from_url(settings.redis_url, max_connections=REDIS_CONNECTIONS)
    # Every game the service hosts, each with its rules and its translation (one entry each).
    catalog = CATALOG
    store = store or RedisEventStore(client, TableCodec(catalog).registry())
    app = TableApplication(
        store,
        dealer or GrpcDealer(channel(settings.dealer_target), test_decks, token),
        GrpcLedger(channel(settings.ledger_target), token),
        ranker or ranker_for(settings, runtime),
        scheduler or NoScheduler(),
        void_after_s=settings.void_after_s,
        attention=attention or RedisAttentionSet(client, settings.attention_key),
        recovery_grace_s=settings.recovery_grace_s,
        catalog=catalog,
    )
    watcher = TableWatcher(app, store)
    # Events this instance appends reach its watchers without the Redis round trip.
    app.on_appended = watcher.appended
    sweep = RecoverySweep(app, interval_s=settings.recovery_interval_s)

    def read_table(table_id: str) -> tuple[str, object]:
        table = app.load(table_id)
        return table.game.name, table.state

    def register(server: grpc.Server) -> None:
        add_table_service(TableServicer(app, watcher), server)
        # The calls a game has beyond the table API (video poker's pay tables and advisor).
        for _name, add in GAME_SERVICES:
            add(server, read_table)
        # The recovery sweep runs as long as the server (wait_for_termination answers
        # False once it has stopped).
        threading.Thread(
            target=sweep.run,
            args=(lambda timeout: not server.wait_for_termination(timeout),),
            name="table-recovery",
            daemon=True,
        ).start()

    return ServiceSpec(
        name="table",
        register=register,
        service_names=[SERVICE_NAME, *(name for name, _add in GAME_SERVICES)],
    )
