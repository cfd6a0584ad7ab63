"""A real dealer (gRPC server on port 0, real Redis) and callers with real tokens."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from croupier.dealer.v1 import dealer_pb2_grpc
from services.dealer.server import SERVICE_NAME, build
from services.dealer.settings import DealerSettings
from services.shared import auth
from services.shared.channels import connect
from services.shared.grpc_server import create_server
from services.shared.healthcheck import wait_until_serving
from tests.fixtures.launcher_process import free_port

AUTH_KEY = "dealer-test-signing-key-0123456789abcdef"
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def dealer_key() -> str:
    return secrets.token_hex(32)


@pytest.fixture
def dealer_env(redis_url: str, dealer_key: str) -> dict[str, str]:
    return {
        "CROUPIER_AUTH_KEY": AUTH_KEY,
        "CROUPIER_DEALER_METRICS_PORT": "0",
        "REDIS_URL": redis_url,
        "CROUPIER_DEALER_KEY": dealer_key,
    }


@pytest.fixture
def start_dealer(dealer_env: dict[str, str]) -> Iterator[Callable[..., str]]:
    """Start an in-process dealer; returns its address. Extra env vars as keyword arguments."""
    servers: list[grpc.Server] = []

    def start(**extra: str) -> str:
        settings = DealerSettings.from_env({**dealer_env, **extra})
        server, port = create_server(build(settings), settings.runtime)
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(0).wait()


@pytest.fixture
def dealer_process(
    dealer_env: dict[str, str], tmp_path: Path
) -> Iterator[Callable[[], tuple[subprocess.Popen[bytes], str]]]:
    """Start `python -m services.dealer` as a real process logging at debug level into
    `<tmp_path>/dealer-<n>.log`; returns it and its address."""
    processes: list[subprocess.Popen[bytes]] = []

    def start() -> tuple[subprocess.Popen[bytes], str]:
        address = f"127.0.0.1:{free_port()}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
        env.update(dealer_env, CROUPIER_DEALER_ADDR=address, CROUPIER_LOG_LEVEL="debug")
        with (tmp_path / f"dealer-{len(processes)}.log").open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "services.dealer"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        processes.append(process)
        assert wait_until_serving(address, SERVICE_NAME, timeout=30), "dealer never served"
        return process, address

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def stub(address: str, subject: str, role: auth.Role) -> dealer_pb2_grpc.DealerServiceStub:
    token = auth.issue_token(AUTH_KEY, subject, role, 600)
    return dealer_pb2_grpc.DealerServiceStub(connect(address, token))


def table_stub(address: str) -> dealer_pb2_grpc.DealerServiceStub:
    return stub(address, "table", auth.Role.SERVICE)


def player_stub(address: str, name: str = "alice") -> dealer_pb2_grpc.DealerServiceStub:
    return stub(address, name, auth.Role.PLAYER)
