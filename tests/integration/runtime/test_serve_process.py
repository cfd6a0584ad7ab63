"""`serve()` as a real process: start-up errors, metrics endpoint, graceful SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.shared import auth
from tests.fixtures.launcher_process import free_port as _free_port

from .conftest import KEY, SERVICE

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[3]


def _start(env_extra: dict[str, str]) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    env.update(env_extra)
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.runtime.probe_main"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_serving(address: str, deadline: float = 20.0) -> None:
    end = time.monotonic() + deadline
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < end:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                time.sleep(0.1)
    raise AssertionError(f"{address} never reported SERVING")


def test_a_missing_auth_key_stops_start_up_with_a_clear_message() -> None:
    proc = _start({"CROUPIER_PROBE_ADDR": f"127.0.0.1:{_free_port()}"})
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "CROUPIER_AUTH_PUBLIC_KEYS_FILE is not set" in output and "croupier keys" in output
    assert "Traceback" not in output


def test_sigterm_lets_an_in_flight_rpc_finish_then_exits_cleanly() -> None:
    address = f"127.0.0.1:{_free_port()}"
    metrics_port = _free_port()
    proc = _start(
        {
            "CROUPIER_AUTH_KEY": KEY,
            "CROUPIER_PROBE_ADDR": address,
            "CROUPIER_PROBE_METRICS_PORT": str(metrics_port),
            "CROUPIER_LOG_JSON": "1",
            "CROUPIER_GRACE_SECONDS": "10",
        }
    )
    try:
        _wait_serving(address)
        token = auth.issue_token(KEY, "erin", auth.Role.PLAYER, 60)
        results: list[bytes | Exception] = []
        with grpc.insecure_channel(address) as channel:
            # No (de)serializers: the call sends and returns raw bytes.
            slow: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                f"/{SERVICE}/Slow"
            )

            def call() -> None:
                try:
                    results.append(slow(b"1.0", metadata=auth.bearer_metadata(token), timeout=15))
                except grpc.RpcError as exc:
                    results.append(exc)

            worker = threading.Thread(target=call)
            worker.start()
            time.sleep(0.3)  # the call is now in flight
            scraped = urllib.request.urlopen(
                f"http://127.0.0.1:{metrics_port}/metrics", timeout=5
            ).read()
            assert b"croupier_grpc_request_duration_seconds" in scraped
            proc.send_signal(signal.SIGTERM)
            worker.join(timeout=15)
        assert results == [b"done"]
        output, _ = proc.communicate(timeout=15)
        assert proc.returncode == 0
        assert '"event": "listening"' in output and '"event": "stopped"' in output
        assert KEY not in output
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_taken_port_stops_start_up_with_a_clear_message() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _start(
            {
                "CROUPIER_AUTH_KEY": KEY,
                "CROUPIER_PROBE_ADDR": f"127.0.0.1:{port}",
                "CROUPIER_PROBE_METRICS_PORT": "0",
            }
        )
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in output and "CROUPIER_PROBE_ADDR" in output
    assert "Traceback" not in output
