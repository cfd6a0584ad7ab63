"""Composition root: wire Redis, the event store, the dealer/ledger/ranker adapters, the
application and the servicer, for the grpc.aio server (`build_aio`, the default: moves on the
event loop with the asyncio store and adapters) or the sync one (`build`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypedDict, Unpack, cast

import grpc
import grpc.aio

from croupier.table.v1 import table_pb2
from croupier.table.v1.table_pb2_grpc import TableServiceServicer
from services.games.ranking import HandRanker
from services.scheduling.swept_writer import SweptWriter
from services.shared.aio_server import AioServiceSpec, Closer
from services.shared.channels import RenewingServiceToken, aio_connect, connect
from services.shared.eventstore import EventStore, RedisEventStore
from services.shared.eventstore.aio_redis_store import AsyncRedisEventStore
from services.shared.grpc_server import ServiceSpec
from services.shared.redis_connection import AsyncClient, async_client, sync_client
from services.shared.settings import RuntimeSettings
from services.table.adapters import GrpcDealer, GrpcLedger, TestDecks
from services.table.aio_adapters import AioGrpcDealer, AioGrpcLedger
from services.table.aio_commands import AioCommands, AioEffects
from services.table.aio_servicer import AioTableServicer
from services.table.application import TableApplication
from services.table.attention import AttentionSet, RedisAttentionSet
from services.table.event_codec import TableCodec
from services.table.games.catalog import CATALOG, GAME_SERVICES
from services.table.ports import DealerPort, NoScheduler, SchedulerPort, SweptWriting
from services.table.ranking import ranker_for
from services.table.recovery import RecoverySweep
from services.table.servicer import TableServicer
from services.table.settings import TableSettings
from services.table.watch_wire import add_table_service
from services.table.watching import TableWatcher

REDIS_CONNECTIONS = 2048
SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
SERVICE_NAMES = [SERVICE_NAME, *(name for name, _add in GAME_SERVICES)]


@dataclass(frozen=True, slots=True)
class Wiring:
    """The table service's parts, whichever server runs them."""

    app: TableApplication
    watcher: TableWatcher
    sweep: RecoverySweep
    token: RenewingServiceToken
    test_decks: TestDecks | None
    # whether the dealer is the real service's adapter (a test's own port has no aio twin)
    grpc_dealer: bool

    def read_table(self, table_id: str) -> tuple[str, object]:
        """A table's game and state, for the calls a game has beyond the table API."""
        table = self.app.load(table_id)
        return table.game.name, table.state

    def add_game_services(self, server: grpc.Server) -> None:
        # The calls a game has beyond the table API (video poker's pay tables and advisor).
        for _name, add in GAME_SERVICES:
            add(server, self.read_table)


class Adapters(TypedDict, total=False):
    """Adapters a test or a benchmark puts in place of the real ones (`wire`, `build`)."""

    store: EventStore | None
    scheduler: SchedulerPort | None
    test_decks: TestDecks | None
    ranker: HandRanker | None
    dealer: DealerPort | None
    attention: AttentionSet | None


def wire(
    settings: TableSettings,
    runtime: RuntimeSettings,
    *,
    store: EventStore | None = None,
    scheduler: SchedulerPort | None = None,
    test_decks: TestDecks | None = None,
    ranker: HandRanker | None = None,
    dealer: DealerPort | None = None,
    attention: AttentionSet | None = None,
) -> Wiring:
    """The application and its adapters; keyword arguments override adapters (tests,
    benchmarks)."""
    # The adapters send the service token as call metadata on plain channels (an intercepted
    # channel costs more CPU per call; see adapters.py).
    token = RenewingServiceToken(runtime.credentials, runtime.service_name)

    def channel(target: str) -> grpc.Channel:
        return connect(target, tls=runtime.tls, max_message_bytes=runtime.max_message_bytes)

    # A ceiling, not an allocation: the pool opens connections as concurrent calls need them.
    # (WatchTable streams hold none each: one blocking read serves every watched table,
    # fanout.py.)
    client = sync_client(settings.redis, max_connections=REDIS_CONNECTIONS)
    # Every game the service hosts, each with its rules and its translation (one entry each).
    catalog = CATALOG
    store = store or RedisEventStore(
        client, TableCodec(catalog).registry(), replica_ack=settings.replica_ack
    )
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
        max_bot_chips_per_table=settings.max_bot_chips_per_table,
        entropy_timing=settings.entropy_timing,
        idle_shuffles_s=settings.idle_shuffles_s,
    )
    watcher = TableWatcher(app, store)
    # Events this instance appends reach its watchers without the Redis round trip.
    app.on_appended = watcher.appended
    sweep = RecoverySweep(app, interval_s=settings.recovery_interval_s)
    return Wiring(app, watcher, sweep, token, test_decks, dealer is None)


def _sweep_until(sweep: RecoverySweep, stopped: Callable[[float], bool]) -> None:
    threading.Thread(target=sweep.run, args=(stopped,), name="table-recovery", daemon=True).start()


def build(
    settings: TableSettings, runtime: RuntimeSettings, **adapters: Unpack[Adapters]
) -> ServiceSpec:
    """The table's ServiceSpec on the sync server (a thread per RPC, a stream holds one);
    keyword arguments override adapters (tests, benchmarks)."""
    parts = wire(settings, runtime, **adapters)

    def register(server: grpc.Server) -> None:
        add_table_service(TableServicer(parts.app, parts.watcher), server)
        parts.add_game_services(server)
        # The recovery sweep runs as long as the server (wait_for_termination answers
        # False once it has stopped).
        _sweep_until(parts.sweep, lambda timeout: not server.wait_for_termination(timeout))

    return ServiceSpec(name="table", register=register, service_names=SERVICE_NAMES)


def build_aio(
    settings: TableSettings, runtime: RuntimeSettings, **adapters: Unpack[Adapters]
) -> AioServiceSpec:
    """The table's spec on grpc.aio (aio_servicer.py: streams hold no thread; commands run on
    a pool of `runtime.max_workers` threads); the same keyword arguments as `build`. A game's
    own servicer (synchronous) runs its calls in worker threads (aio_interceptors)."""
    parts = wire(settings, runtime, **adapters)

    def register(server: grpc.aio.Server) -> Closer:
        commands = ThreadPoolExecutor(runtime.max_workers, thread_name_prefix="table-command")
        moves = _aio_moves(parts, settings, runtime)
        servicer = AioTableServicer(
            TableServicer(parts.app, parts.watcher), commands, moves[0] if moves else None
        )
        # (the generated registration reads the servicer's methods by name: the aio ones)
        add_table_service(cast(TableServiceServicer, servicer), cast(grpc.Server, server))
        parts.add_game_services(cast(grpc.Server, server))
        stopping = threading.Event()
        _sweep_until(parts.sweep, stopping.wait)

        async def close() -> None:
            stopping.set()
            commands.shutdown(wait=False, cancel_futures=True)
            if moves is not None:
                await moves[0].drain(runtime.grace_seconds)
                await moves[1]()

        return close

    return AioServiceSpec(name="table", register=register, service_names=SERVICE_NAMES)


def _aio_moves(
    parts: Wiring, settings: TableSettings, runtime: RuntimeSettings
) -> tuple[AioCommands, Closer] | None:
    """(on the server's loop) The tables' writers on the event loop: the asyncio twins of the
    event store (the same Redis, keys and scripts), the dealer and the ledger. None when a
    test or a benchmark replaced the store or the dealer with one that has no twin (an
    in-memory store): moves then run the synchronous path on the pool."""
    store = parts.app.store
    if not isinstance(store, RedisEventStore) or not parts.grpc_dealer:
        return None
    client = async_client(settings.redis, max_connections=REDIS_CONNECTIONS)
    aio_store = AsyncRedisEventStore(
        client,
        TableCodec(parts.app.catalog).registry(),
        durability=store.durability,
        replica_ack=store.replica_ack,
    )
    channels = [
        aio_connect(target, tls=runtime.tls, max_message_bytes=runtime.max_message_bytes)
        for target in (settings.dealer_target, settings.ledger_target)
    ]
    swept = _swept_on_the_loop(parts.app.scheduler)
    effects = AioEffects(
        parts.app,
        aio_store,
        AioGrpcDealer(channels[0], parts.test_decks, parts.token),
        AioGrpcLedger(channels[1], parts.token),
        swept_on_loop=swept is not None,
    )

    async def close() -> None:
        if swept is not None:
            await swept[0].close()
            await swept[1].aclose()
        await aio_store.close()
        await client.aclose()
        for channel in channels:
            await channel.close()

    return AioCommands(parts.app, effects), close


def _swept_on_the_loop(scheduler: SchedulerPort) -> tuple[SweptWriter, AsyncClient] | None:
    """(on the loop) The real-time tables' deadlines written from the loop, coalesced
    (swept_writer.py), when the scheduler says where its swept index is: no worker thread
    and no Redis round trip of its own per card played."""
    if not isinstance(scheduler, SweptWriting) or scheduler.swept_redis is None:
        return None
    client = async_client(scheduler.swept_redis)
    writer = SweptWriter(client).start()
    scheduler.write_swept_through(writer.submit)
    return writer, client
