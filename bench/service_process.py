"""Run one croupier service as its own process for a benchmark, the way `make run` starts it.

Shared by the dealer, ledger and table benchmarks: start `python -m services.<name>`, wait
until its grpc.health Check answers, and read how much CPU it has used.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.shared.redis_embedded import free_port

__all__ = ["cpu_seconds", "free_port", "start_service", "wait_healthy"]

# A cold interpreter importing grpc and the generated code takes a few seconds on a busy
# machine; 30 s only bounds a service that will never come up.
HEALTHY_WITHIN_S = 30.0


def wait_healthy(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    """Return once the service on `port` answers a health Check; kill it and raise if it exits
    or does not answer within HEALTHY_WITHIN_S."""
    deadline = time.monotonic() + HEALTHY_WITHIN_S
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                return
            except grpc.RpcError:
                if time.monotonic() > deadline or process.poll() is not None:
                    process.kill()
                    raise RuntimeError(f"the {name} service did not become healthy") from None
                time.sleep(0.1)


def start_service(name: str, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`python -m services.<name>` with `env`, healthy on `port` when this returns."""
    process = subprocess.Popen([sys.executable, "-m", f"services.{name}"], env=env)
    wait_healthy(port, process, name)
    return process


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process so far (Linux /proc), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
