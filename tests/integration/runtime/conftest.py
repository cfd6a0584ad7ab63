"""A tiny raw-bytes test service served through the real runtime (no proto needed).

`/croupier.test.Probe/Whoami` returns the caller's subject and role, `/Fail` raises the
DomainError class named in the request, and `/Count` streams N numbered messages.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import TypedDict, Unpack

import grpc
import pytest

from services.shared import auth, errors
from services.shared.aio_server import AioServiceSpec
from services.shared.grpc_server import ServiceSpec, create_server
from services.shared.settings import RuntimeSettings, TlsSettings
from tests.fixtures.aio_server_thread import AioServerThread

KEY = "test-signing-key-0123456789abcdef"
SERVICE = "croupier.test.Probe"


def _whoami(request: bytes, context: grpc.ServicerContext) -> bytes:
    principal = auth.current_principal()
    return f"{principal.subject}/{principal.role.value}".encode()


def _fail(request: bytes, context: grpc.ServicerContext) -> bytes:
    name = request.decode()
    if name == "boom":
        raise RuntimeError(f"secret {KEY} must not leak")
    cls = getattr(errors, name)
    if name == "Conflict":
        raise cls("stream moved on", actual_version=7)
    raise cls(f"{name} happened")


def _count(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
    total = int(request.decode())
    for i in range(total):
        if i == 3 and total == 99:
            raise errors.FailedPrecondition("stream stopped at 3")
        yield f"{i}:{auth.current_principal().subject}".encode()


def _slow(request: bytes, context: grpc.ServicerContext) -> bytes:
    time.sleep(float(request.decode()))
    return b"done"


def _register(server: grpc.Server) -> None:
    # No (de)serializers: the methods take and return raw bytes.
    handlers: dict[str, grpc.RpcMethodHandler[bytes, bytes]] = {
        "Slow": grpc.unary_unary_rpc_method_handler(_slow),
        "Whoami": grpc.unary_unary_rpc_method_handler(_whoami),
        "Fail": grpc.unary_unary_rpc_method_handler(_fail),
        "Count": grpc.unary_stream_rpc_method_handler(_count),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


SPEC = ServiceSpec(name="probe", register=_register, service_names=[SERVICE])


# The same service as coroutines, for the grpc.aio runtime (services/shared/aio_server.py).
async def _aio_whoami(request: bytes, context: object) -> bytes:
    return _whoami(request, context)  # type: ignore[arg-type]


async def _aio_fail(request: bytes, context: object) -> bytes:
    return _fail(request, context)  # type: ignore[arg-type]


async def _aio_count(request: bytes, context: object) -> AsyncIterator[bytes]:
    for item in _count(request, context):  # type: ignore[arg-type]
        yield item
        await asyncio.sleep(0)


async def _aio_slow(request: bytes, context: object) -> bytes:
    await asyncio.sleep(float(request.decode()))
    return b"done"


def _aio_register(server: grpc.aio.Server) -> None:
    handlers: dict[str, grpc.RpcMethodHandler[bytes, bytes]] = {
        "Slow": grpc.unary_unary_rpc_method_handler(_aio_slow),
        "Whoami": grpc.unary_unary_rpc_method_handler(_aio_whoami),
        "Fail": grpc.unary_unary_rpc_method_handler(_aio_fail),
        "Count": grpc.unary_stream_rpc_method_handler(_aio_count),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


AIO_SPEC = AioServiceSpec(name="probe", register=_aio_register, service_names=[SERVICE])


class RuntimeOverrides(TypedDict, total=False):
    """RuntimeSettings' fields, so that runtime_settings' overrides are checked one by one."""

    service_name: str
    address: str
    auth_key: str
    metrics_port: int
    metrics_host: str
    log_level: str
    log_json: bool
    max_message_bytes: int
    grace_seconds: float
    max_workers: int
    tls: TlsSettings


def runtime_settings(**overrides: Unpack[RuntimeOverrides]) -> RuntimeSettings:
    env = {"CROUPIER_AUTH_KEY": KEY, "CROUPIER_PROBE_METRICS_PORT": "0"}
    settings = RuntimeSettings.from_env("probe", 0, env=env)
    if overrides:
        from dataclasses import replace

        settings = replace(settings, **overrides)
    return settings


@pytest.fixture(scope="module", params=["sync", "aio"])
def probe_server(request: pytest.FixtureRequest) -> Iterator[int]:
    """The probe on the sync server and on grpc.aio: each runtime's interceptors, health and
    reflection held to the same tests."""
    if request.param == "aio":
        aio = AioServerThread(AIO_SPEC, runtime_settings())
        yield aio.port
        aio.stop()
        return
    server, port = create_server(SPEC, runtime_settings())
    yield port
    server.stop(0).wait()


@pytest.fixture
def channel(probe_server: int) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{probe_server}") as chan:
        yield chan
