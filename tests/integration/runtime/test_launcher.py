"""The launcher behind `croupier run`: key, private Redis, health-gated start, clean Ctrl-C."""

from __future__ import annotations

import signal
import stat
import sys
from pathlib import Path

import pytest

from services.shared.healthcheck import is_serving
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
        key_file = tmp_path / "auth-key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert key_file.read_text().strip() not in "\n".join(launcher.lines)
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
        launcher.process.send_signal(signal.SIGHUP)
        assert launcher.process.wait(60) == 0
    finally:
        launcher.kill()
    assert not [name for name, pid in pids.items() if pid_alive(pid)]
