"""One `croupier run` for every end-to-end test: the platform exactly as `make run` starts it
(private Redis, every service, the Celery worker that seats and plays bots; bots think 0 ms),
started once for the whole package, from an empty directory with the default (relative)
state dir, on private ports.

Starting it costs seconds of both cores (every service and the worker import and warm up);
each test uses its own players and tables, so they share one. Its teardown is a test of its
own: Ctrl-C stops every process it started, the private Redis included, and says so.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from services.client.launcher import GRPC_DEPLOYABLES
from tests.fixtures.launcher_process import (
    LauncherProcess,
    croupier_command,
    pid_alive,
    private_addresses,
)


@dataclass
class Running:
    """The running platform: the clients' environment (targets), where it keeps its state,
    how long it took to come up, and the launcher (its summary lines name every child's
    pid)."""

    env: dict[str, str]
    cwd: Path
    state_dir: Path
    startup_s: float
    launcher: LauncherProcess
    addresses: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="package")
def croupier_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    where = tmp_path_factory.mktemp("croupier-run")
    addresses = private_addresses(GRPC_DEPLOYABLES)
    launched = time.monotonic()
    launcher = LauncherProcess(
        [*croupier_command(), "run"], {"CROUPIER_WORKERS_BOT_DELAY": "0", **addresses}, cwd=where
    )
    try:
        launcher.wait_for("croupier is running", timeout=120)
        startup_s = time.monotonic() - launched
        print(f"croupier run was up {startup_s:.1f} s after it started")
        targets = {
            f"CROUPIER_{name.upper()}_TARGET": addresses[f"CROUPIER_{name.upper()}_ADDR"]
            for name in GRPC_DEPLOYABLES
        }
        running = Running(
            env=targets,
            cwd=where,
            state_dir=where / ".run",
            startup_s=startup_s,
            launcher=launcher,
            addresses=addresses,
        )
        yield running
        pids = launcher.pids()
        assert launcher.interrupt() == 0, "\n".join(launcher.lines[-30:])
    finally:
        launcher.kill()
    assert "croupier stopped" in launcher.lines, "\n".join(launcher.lines[-30:])
    assert not [name for name, pid in pids.items() if pid_alive(pid)], pids
