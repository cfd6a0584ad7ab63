"""A synchronous servicer registered on the grpc.aio server (aio_interceptors.as_coroutine):
its unary and server-streaming methods run in worker threads with the caller's principal,
and their errors map to statuses exactly as on the sync server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import grpc
import grpc.aio
import pytest

from services.shared import auth
from services.shared.aio_server import AioServiceSpec
from tests.fixtures.aio_server_thread import AioServerThread

from .conftest import KEY, SERVICE, _register, runtime_settings

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def channel() -> Iterator[grpc.Channel]:
    def register(server: grpc.aio.Server) -> None:
        _register(cast(grpc.Server, server))  # the sync probe's registration, unchanged

    spec = AioServiceSpec(name="probe", register=register, service_names=[SERVICE])
    server = AioServerThread(spec, runtime_settings())
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as chan:
        yield chan
    server.stop()


def metadata(subject: str = "alice") -> tuple[tuple[str, str], ...]:
    return auth.bearer_metadata(auth.issue_token(KEY, subject, auth.Role.PLAYER, 60))


def test_a_sync_unary_method_sees_the_caller(channel: grpc.Channel) -> None:
    whoami: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Whoami")
    assert whoami(b"", metadata=metadata("carol"), timeout=10) == b"carol/player"


def test_a_sync_method_s_domain_error_is_its_status(channel: grpc.Channel) -> None:
    fail: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Fail")
    with pytest.raises(grpc.RpcError) as info:
        fail(b"NotFound", metadata=metadata(), timeout=10)
    assert info.value.code() is grpc.StatusCode.NOT_FOUND
    assert info.value.details() == "NotFound happened"


def test_a_sync_stream_streams_and_its_error_mid_stream_is_mapped(channel: grpc.Channel) -> None:
    count: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(f"/{SERVICE}/Count")
    assert list(count(b"3", metadata=metadata("dan"), timeout=10)) == [
        b"0:dan",
        b"1:dan",
        b"2:dan",
    ]
    received: list[bytes] = []
    with pytest.raises(grpc.RpcError) as info:
        received.extend(count(b"99", metadata=metadata(), timeout=10))
    assert info.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert received == [b"0:alice", b"1:alice", b"2:alice"]
