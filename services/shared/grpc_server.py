"""gRPC server bootstrap shared by every croupier service.

A deployable describes itself with a `ServiceSpec` (its name, a function that adds its
servicers to a server, and the full names of the gRPC services it registers). Then:

* ``create_server(spec, settings, address="127.0.0.1:0") -> (server, port)`` builds and starts
  a server with grpc.health.v1 (SERVING for each service and for ""), server reflection,
  message-size caps, and the metrics / error-mapping / auth interceptors. Tests use it with
  port 0 and talk to the real server over a real channel.
* ``serve(spec, settings)`` is the process entry point: logging, the Prometheus endpoint, the
  server on ``settings.address``; it blocks until SIGTERM or SIGINT, then marks health
  NOT_SERVING and lets in-flight RPCs finish for ``settings.grace_seconds``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass
from types import FrameType

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.shared.interceptors import default_interceptors
from services.shared.logging import configure_logging
from services.shared.metrics import start_metrics_endpoint
from services.shared.settings import RuntimeSettings, env_prefix

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """What a deployable serves: `register` adds its servicers; `service_names` are the full
    gRPC service names (e.g. ``dealer_pb2.DESCRIPTOR.services_by_name["DealerService"].full_name``)
    reported by health checks and reflection."""

    name: str
    register: Callable[[grpc.Server], None]
    service_names: Sequence[str]


@dataclass(frozen=True, slots=True)
class RunningServer:
    """A started server with its bound port and health servicer (for graceful shutdown)."""

    server: grpc.Server
    port: int
    health: health.HealthServicer

    def stop(self, grace: float) -> None:
        """Report NOT_SERVING, then let in-flight RPCs finish for up to `grace` seconds."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()


def server_options(settings: RuntimeSettings) -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        # A restarted service must be able to bind its port again immediately, but two live
        # services must never share one by accident.
        ("grpc.so_reuseport", 0),
    ]


def _credentials(settings: RuntimeSettings) -> grpc.ServerCredentials | None:
    tls = settings.tls
    if not tls.server_enabled:
        return None
    assert tls.private_key is not None and tls.cert_chain is not None
    return grpc.ssl_server_credentials(
        [(tls.private_key, tls.cert_chain)],
        root_certificates=tls.client_ca,
        require_client_auth=tls.client_ca is not None,
    )


def start_server(
    spec: ServiceSpec, settings: RuntimeSettings, *, address: str | None = None
) -> RunningServer:
    """Build, bind and start the server; `address` overrides ``settings.address``."""
    server = grpc.server(
        futures.ThreadPoolExecutor(
            max_workers=settings.max_workers, thread_name_prefix=f"{spec.name}-rpc"
        ),
        interceptors=default_interceptors(settings.credentials),
        options=server_options(settings),
    )
    spec.register(server)

    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *spec.service_names):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)

    reflection.enable_server_reflection(
        (*spec.service_names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )

    port = listen(server, spec.name, address if address is not None else settings.address, settings)
    server.start()
    return RunningServer(server=server, port=port, health=health_servicer)


def create_server(
    spec: ServiceSpec, settings: RuntimeSettings, *, address: str | None = "127.0.0.1:0"
) -> tuple[grpc.Server, int]:
    """Start a fully equipped server (port 0 by default, for tests); returns it and its port."""
    running = start_server(spec, settings, address=address)
    return running.server, running.port


def listen(
    server: grpc.Server | grpc.aio.Server, name: str, bind: str, settings: RuntimeSettings
) -> int:
    """Bind `server` to `bind` (TLS when the settings name a certificate): the port, or an
    OSError a person can act on."""
    credentials = _credentials(settings)
    try:
        if credentials is None:
            port = server.add_insecure_port(bind)
        else:
            port = server.add_secure_port(bind, credentials)
    except RuntimeError as exc:
        raise OSError(f"{name}: cannot listen on {bind}: {exc}") from exc
    if port == 0:
        raise OSError(f"{name}: cannot listen on {bind} (address in use?)")
    return port


def serve_metrics(name: str, settings: RuntimeSettings) -> int | None:
    """The metrics endpoint's port (None when disabled), or exit saying which setting to change."""
    try:
        return start_metrics_endpoint(settings.metrics_host, settings.metrics_port)
    except OSError as exc:
        raise SystemExit(
            f"{name}: cannot serve metrics on {settings.metrics_host}:"
            f"{settings.metrics_port} ({exc.strerror or exc}); set "
            f"{env_prefix(name)}METRICS_PORT (0 disables)"
        ) from exc


def _host_of(address: str) -> str:
    return address.rpartition(":")[0]


def _describe_tokens(settings: RuntimeSettings) -> str:
    keys = settings.service_keys
    if keys is None:
        return "shared development key"
    signs = f"signs as {keys.issuer}" if keys.private_key is not None else "signs nothing"
    return f"Ed25519 service identities ({signs}; trusts {', '.join(sorted(keys.public_keys))})"


def serve(spec: ServiceSpec, settings: RuntimeSettings) -> None:
    """Run `spec` until SIGTERM/SIGINT; then stop gracefully. Call from the main thread."""
    configure_logging(settings.log_level, settings.log_json)
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        log.info("stop requested", service=spec.name, signal=signal.Signals(signum).name)
        stop_requested.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    metrics_port = serve_metrics(spec.name, settings)
    try:
        running = start_server(spec, settings)
    except OSError as exc:
        raise SystemExit(f"{exc}; set {env_prefix(spec.name)}ADDR to a free host:port") from exc
    log.info(
        "listening",
        service=spec.name,
        address=f"{_host_of(settings.address)}:{running.port}",
        transport=settings.tls.describe(),
        services=list(spec.service_names),
        metrics=f"http://{settings.metrics_host}:{metrics_port}/metrics" if metrics_port else None,
        tokens=_describe_tokens(settings),
    )
    if settings.shared_key_mode:
        log.warning(
            "shared development key (CROUPIER_AUTH_KEY): whoever holds it can sign every role; "
            "use service identities (croupier keys) outside development and tests",
            service=spec.name,
        )
    # Wake periodically so the signal handler runs promptly on every platform.
    while not stop_requested.wait(timeout=0.5):
        pass
    running.stop(settings.grace_seconds)
    log.info("stopped", service=spec.name)
