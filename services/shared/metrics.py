"""Prometheus metrics shared by every croupier gRPC server (one set per process).

Scraped from ``http://<metrics host>:<metrics port>/metrics`` which `grpc_server.serve`
starts. Latency buckets span 0.5 ms .. 10 s: unary RPCs are expected in the low
milliseconds, while a WatchTable stream is observed once, over its whole lifetime.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram, start_http_server

REQUESTS = Counter(
    "croupier_grpc_requests",
    "gRPC requests handled, by service, method and final status code",
    ["grpc_service", "grpc_method", "grpc_code"],
)

REQUEST_LATENCY = Histogram(
    "croupier_grpc_request_duration_seconds",
    "Time from receiving an RPC to its final status, in seconds",
    ["grpc_service", "grpc_method"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
)


def start_metrics_endpoint(host: str, port: int) -> int:
    """Serve /metrics on host:port in a daemon thread; returns the bound port (0 = disabled)."""
    if port <= 0:
        return 0
    server, _thread = start_http_server(port, addr=host)
    return int(server.server_port)
