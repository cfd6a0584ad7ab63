"""What the shared runtime costs per RPC: a unary call through the full croupier stack
(metrics, error mapping, bearer-token verification) next to the same handler on a bare
grpc.server, plus the grpc.health.v1 Check (auth-exempt) through the full stack.

Each variant: sequential calls from one client (latency p50/p99) and calls from 4 client
threads at once (throughput). Client and server share the machine, so these are upper
bounds of per-RPC overhead rather than network numbers.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from concurrent import futures

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.shared import auth
from services.shared.grpc_server import ServiceSpec, create_server, server_options
from services.shared.settings import RuntimeSettings

KEY = "bench-signing-key-0123456789abcdef-0123456789"
SERVICE = "croupier.bench.Echo"
METHOD = f"/{SERVICE}/Echo"


def _echo(request: bytes, context: grpc.ServicerContext) -> bytes:
    return request


def _register(server: grpc.Server) -> None:
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"Echo": grpc.unary_unary_rpc_method_handler(_echo)}
    )
    server.add_generic_rpc_handlers((handler,))


def _settings() -> RuntimeSettings:
    env = {"CROUPIER_AUTH_KEY": KEY, "CROUPIER_BENCH_METRICS_PORT": "0"}
    return RuntimeSettings.from_env("bench", 0, env=env)


def _bare_server() -> tuple[grpc.Server, int]:
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=32), options=server_options(_settings())
    )
    _register(server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def _measure(call: Callable[[], object], calls: int, threads: int) -> dict[str, float]:
    for _ in range(min(200, calls)):  # warm up connections and code paths
        call()
    latencies = []
    for _ in range(calls):
        started = time.perf_counter()
        call()
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    per_thread = max(1, calls // threads)
    with futures.ThreadPoolExecutor(threads) as pool:
        started = time.perf_counter()
        list(pool.map(lambda _: [call() for _ in range(per_thread)], range(threads)))
        elapsed = time.perf_counter() - started
    return {
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "seq_rpc_per_s": calls / sum(latencies),
        f"rpc_per_s_{threads}_threads": per_thread * threads / elapsed,
    }


def run(quick: bool) -> list[dict]:
    calls = 300 if quick else 3000
    threads = 4
    token = auth.issue_token(KEY, "bench", auth.Role.SERVICE, 3600)
    metadata = auth.bearer_metadata(token)
    payload = b"x" * 64
    rows = []

    bare, bare_port = _bare_server()
    full, full_port = create_server(ServiceSpec("bench", _register, [SERVICE]), _settings())
    try:
        with grpc.insecure_channel(f"127.0.0.1:{bare_port}") as channel:
            echo = channel.unary_unary(METHOD)
            rows.append(
                {
                    "variant": "bare grpc.server, unary echo",
                    "calls": calls,
                    **_measure(lambda: echo(payload, timeout=5), calls, threads),
                }
            )
        with grpc.insecure_channel(f"127.0.0.1:{full_port}") as channel:
            echo = channel.unary_unary(METHOD)
            rows.append(
                {
                    "variant": "croupier stack, unary echo + token",
                    "calls": calls,
                    **_measure(lambda: echo(payload, metadata=metadata, timeout=5), calls, threads),
                }
            )
            health = health_pb2_grpc.HealthStub(channel)
            check = health_pb2.HealthCheckRequest(service=SERVICE)
            rows.append(
                {
                    "variant": "croupier stack, health Check",
                    "calls": calls,
                    **_measure(lambda: health.Check(check, timeout=5), calls, threads),
                }
            )
    finally:
        bare.stop(0).wait()
        full.stop(0).wait()
    return rows
