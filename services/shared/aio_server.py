"""gRPC server bootstrap for services that run on grpc.aio (one event loop; a stream holds no
thread). The same equipment as `grpc_server.start_server`: grpc.health.v1 (SERVING for each
service and for ""), server reflection, the message-size caps and port options, TLS, and the
metrics / error-mapping / auth interceptors (aio_interceptors.py).

    running = await start_aio_server(spec, settings)        # tests: port 0
    serve_aio(spec, settings)                               # a process: until SIGTERM/SIGINT

`AioServiceSpec.register(server)` adds the servicers and may return a coroutine function that
the server awaits once it has stopped (to close what the servicers opened).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import grpc
import grpc.aio
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.shared.aio_interceptors import default_interceptors
from services.shared.grpc_server import _host_of, listen, serve_metrics, server_options
from services.shared.logging import configure_logging
from services.shared.settings import RuntimeSettings, env_prefix

log = structlog.get_logger(__name__)

Closer = Callable[[], Awaitable[None]]
# Calls gRPC's core holds for the server before the event loop takes them (its defaults:
# 1,000, hard limit 3,000). A burst of new streams (every watcher reconnecting after a
# restart) waits there while the loop starts the calls one by one, and past the limit core
# cancels the waiting ones: 2,000 WatchTable streams opened at once lost 140-230 to CANCELLED
# at the defaults and none at these (docs/perf/table.md, "grpc.aio runtime").
PENDING_CALLS = 20_000
PENDING_CALLS_HARD_LIMIT = 40_000


@dataclass(frozen=True, slots=True)
class AioServiceSpec:
    """What an aio deployable serves (see `grpc_server.ServiceSpec`); `register` may return
    a closer, awaited after the server stopped."""

    name: str
    register: Callable[[grpc.aio.Server], Closer | None]
    service_names: Sequence[str]


@dataclass(slots=True)
class AioRunningServer:
    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    closers: list[Closer] = field(default_factory=list)

    async def stop(self, grace: float | None) -> None:
        """Report NOT_SERVING, let in-flight RPCs finish for up to `grace` seconds, then close
        what the servicers opened."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        for close in self.closers:
            await close()


async def start_aio_server(
    spec: AioServiceSpec, settings: RuntimeSettings, *, address: str | None = None
) -> AioRunningServer:
    """Build, bind and start the server on the running loop; `address` overrides
    ``settings.address``."""
    server = grpc.aio.server(
        interceptors=default_interceptors(settings.credentials),
        options=[
            *server_options(settings),
            ("grpc.server.max_pending_requests", PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", PENDING_CALLS_HARD_LIMIT),
        ],
    )
    closer = spec.register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *spec.service_names):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (*spec.service_names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = listen(server, spec.name, address if address is not None else settings.address, settings)
    await server.start()
    return AioRunningServer(server, port, health_servicer, [closer] if closer else [])


def serve_aio(spec: AioServiceSpec, settings: RuntimeSettings) -> None:
    """Run `spec` on a new event loop until SIGTERM/SIGINT; then stop gracefully."""
    configure_logging(settings.log_level, settings.log_json)
    metrics_port = serve_metrics(spec.name, settings)
    asyncio.run(_serve(spec, settings, metrics_port))


async def _serve(spec: AioServiceSpec, settings: RuntimeSettings, metrics_port: int | None) -> None:
    stop_requested = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):

        def request_stop(signum: int = signum) -> None:
            log.info("stop requested", service=spec.name, signal=signal.Signals(signum).name)
            stop_requested.set()

        loop.add_signal_handler(signum, request_stop)
    try:
        running = await start_aio_server(spec, settings)
    except OSError as exc:
        raise SystemExit(f"{exc}; set {env_prefix(spec.name)}ADDR to a free host:port") from exc
    log.info(
        "listening",
        service=spec.name,
        address=f"{_host_of(settings.address)}:{running.port}",
        transport=settings.tls.describe(),
        services=list(spec.service_names),
        runtime="grpc.aio",
        metrics=f"http://{settings.metrics_host}:{metrics_port}/metrics" if metrics_port else None,
    )
    await stop_requested.wait()
    await running.stop(settings.grace_seconds)
    log.info("stopped", service=spec.name)
