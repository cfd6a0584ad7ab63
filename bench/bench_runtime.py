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

from bench.percentiles import percentile
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


def _latencies(call: Callable[[], object], calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        started = time.perf_counter()
        call()
        out.append(time.perf_counter() - started)
    return out


def _throughput(call: Callable[[], object], calls: int, threads: int) -> tuple[int, float]:
    per_thread = max(1, calls // threads)
    with futures.ThreadPoolExecutor(threads) as pool:
        started = time.perf_counter()
        list(pool.map(lambda _: [call() for _ in range(per_thread)], range(threads)))
        return per_thread * threads, time.perf_counter() - started


def _compare(
    variants: dict[str, Callable[[], object]], calls: int, threads: int
) -> list[dict[str, object]]:
    """Measure the variants in interleaved rounds so load from other processes on the
    machine hits all of them alike; report each variant's pooled numbers."""
    rounds = 10
    per_round = max(1, calls // rounds)
    latencies: dict[str, list[float]] = {name: [] for name in variants}
    done: dict[str, list[float]] = {name: [0.0, 0.0] for name in variants}
    for call in variants.values():  # warm up connections and code paths
        for _ in range(100):
            call()
    for _ in range(rounds):
        for name, call in variants.items():
            latencies[name].extend(_latencies(call, per_round))
            count, elapsed = _throughput(call, per_round, threads)
            done[name][0] += count
            done[name][1] += elapsed
    rows = []
    for name in variants:
        samples = sorted(latencies[name])
        rows.append(
            {
                "variant": name,
                "calls": len(samples),
                "p50_ms": statistics.median(samples) * 1000,
                "p99_ms": percentile(samples, 0.99) * 1000,
                "seq_rpc_per_s": len(samples) / sum(samples),
                f"rpc_per_s_{threads}_threads": done[name][0] / done[name][1],
            }
        )
    return rows


def run(quick: bool) -> list[dict[str, object]]:
    calls = 300 if quick else 3000
    threads = 4
    token = auth.issue_token(KEY, "bench", auth.Role.SERVICE, 3600)
    metadata = auth.bearer_metadata(token)
    payload = b"x" * 64

    bare, bare_port = _bare_server()
    full, full_port = create_server(ServiceSpec("bench", _register, [SERVICE]), _settings())
    bare_channel = grpc.insecure_channel(f"127.0.0.1:{bare_port}")
    full_channel = grpc.insecure_channel(f"127.0.0.1:{full_port}")
    try:
        # No (de)serializers: the echo sends and gets raw bytes.
        bare_echo: grpc.UnaryUnaryMultiCallable[bytes, bytes] = bare_channel.unary_unary(METHOD)
        full_echo: grpc.UnaryUnaryMultiCallable[bytes, bytes] = full_channel.unary_unary(METHOD)
        health = health_pb2_grpc.HealthStub(full_channel)
        check = health_pb2.HealthCheckRequest(service=SERVICE)
        return _compare(
            {
                "bare grpc.server, unary echo": lambda: bare_echo(payload, timeout=5),
                "croupier stack, unary echo + token": lambda: full_echo(
                    payload, metadata=metadata, timeout=5
                ),
                "croupier stack, health Check": lambda: health.Check(check, timeout=5),
            },
            calls,
            threads,
        )
    finally:
        bare_channel.close()
        full_channel.close()
        bare.stop(0).wait()
        full.stop(0).wait()
