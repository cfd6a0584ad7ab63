"""The launcher behind `croupier run`: keys, private Redis, health-gated start, clean Ctrl-C."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from services.shared.healthcheck import is_serving
from tests.fixtures.conditions import wait_until
from tests.fixtures.launcher_process import LauncherProcess, free_port, pid_alive

from .conftest import SERVICE

pytestmark = pytest.mark.integration


def test_launcher_starts_redis_and_a_service_then_ctrl_c_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    address = f"127.0.0.1:{free_port()}"
    launcher = LauncherProcess(
        [sys.executable, "-m", "tests.integration.runtime.launch_probe", str(tmp_path)],
        {"CROUPIER_PROBE_ADDR": address, "CROUPIER_PROBE_METRICS_PORT": "0"},
    )
    try:
        launcher.wait_for("croupier is running")
        pids = launcher.pids()
        assert set(pids) == {"probe", "redis"}
        assert is_serving(address, SERVICE)
        for issuer in ("croupier", "table", "workers"):
            key_file = tmp_path / "keys" / f"{issuer}.key"
            assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
            secret = "".join(key_file.read_text().splitlines()[1:-1])
            assert secret not in "".join(launcher.lines)
        assert launcher.interrupt() == 0
    finally:
        launcher.kill()
    assert not [name for name, pid in pids.items() if pid_alive(pid)]
    assert not is_serving(address, SERVICE, timeout=0.5)


def test_a_service_that_dies_at_start_up_stops_the_launcher_with_an_error(tmp_path: Path) -> None:
    # No listen address the probe can parse: it exits at once with a settings error.
    launcher = LauncherProcess(
        [sys.executable, "-m", "tests.integration.runtime.launch_probe", str(tmp_path)],
        {"CROUPIER_PROBE_ADDR": "not-an-address", "CROUPIER_PROBE_METRICS_PORT": "0"},
    )
    try:
        code = launcher.process.wait(60)
        launcher.wait_for("croupier stopped")
    finally:
        launcher.kill()
    assert code == 1
    output = "\n".join(launcher.lines)
    assert "is not host:port" in output and "probe exited with status 1" in output


def test_a_hangup_stops_the_launcher_and_its_children_too(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    launcher = LauncherProcess(
        [sys.executable, "-m", "tests.integration.runtime.launch_probe", str(tmp_path)],
        {"CROUPIER_PROBE_ADDR": address, "CROUPIER_PROBE_METRICS_PORT": "0"},
    )
    try:
        launcher.wait_for("croupier is running")
        pids = launcher.pids()
        assert set(pids) == {"probe", "redis"}, launcher.output()
        launcher.process.send_signal(signal.SIGHUP)
        try:
            code = launcher.process.wait(90)
        except subprocess.TimeoutExpired:
            raise AssertionError("still running 90 s after SIGHUP:\n" + launcher.output()) from None
        launcher.wait_for("croupier stopped")
        assert code == 0, launcher.output()
    finally:
        launcher.kill()
    left = [name for name, pid in pids.items() if pid_alive(pid)]
    assert not left, f"{left} outlived the launcher:\n{launcher.output()}"


def _restarted_pid(launcher: LauncherProcess, name: str) -> int:
    """Wait for the launcher to say it started `name` again; the new pid it names."""
    launcher.wait_for(f"{name} started again", timeout=60)
    line = next(x for x in reversed(launcher.lines) if f"{name} started again" in x)
    return int(line.rsplit("pid ", 1)[1])


def test_a_child_or_redis_that_dies_is_started_again_and_the_launcher_runs_on(
    tmp_path: Path,
) -> None:
    address = f"127.0.0.1:{free_port()}"
    launcher = LauncherProcess(
        [sys.executable, "-m", "tests.integration.runtime.launch_probe", str(tmp_path)],
        {"CROUPIER_PROBE_ADDR": address, "CROUPIER_PROBE_METRICS_PORT": "0"},
    )
    alive: list[int] = []
    try:
        launcher.wait_for("croupier is running")
        pids = launcher.pids()
        os.kill(pids["probe"], signal.SIGKILL)
        probe = _restarted_pid(launcher, "probe")
        alive.append(probe)
        assert probe != pids["probe"] and pid_alive(probe)
        wait_until(lambda: is_serving(address, SERVICE), 60, "the probe SERVING again")

        os.kill(pids["redis"], signal.SIGKILL)
        redis_pid = _restarted_pid(launcher, "redis")
        alive.append(redis_pid)
        url = next(x.split()[1] for x in launcher.lines if x.startswith("  redis "))
        assert redis.Redis.from_url(url).ping()
        assert launcher.process.poll() is None  # never stopped
        assert launcher.interrupt() == 0
    finally:
        launcher.kill()
    assert not [pid for pid in alive if pid_alive(pid)]
