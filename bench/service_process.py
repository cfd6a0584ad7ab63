"""Run one croupier service as its own process for a benchmark, the way `make run` starts it.

Shared by the dealer, ledger and table benchmarks: start `python -m services.<name>`, wait
until its grpc.health Check answers, and read how much CPU it has used.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from services.shared.healthcheck import is_serving
from services.shared.redis_embedded import free_port

__all__ = ["cpu_seconds", "free_port", "start_service", "wait_healthy"]

# A cold interpreter importing grpc and the generated code takes a few seconds on a busy
# machine; 30 s only bounds a service that will never come up.
HEALTHY_WITHIN_S = 30.0


def wait_healthy(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    """Return once the service on `port` answers SERVING; kill it and raise if it exits or
    does not within HEALTHY_WITHIN_S."""
    deadline = time.monotonic() + HEALTHY_WITHIN_S
    while not is_serving(f"127.0.0.1:{port}", timeout=1.0):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"the {name} service did not become healthy")
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
