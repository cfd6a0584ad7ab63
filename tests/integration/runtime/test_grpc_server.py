"""The shared gRPC runtime: auth, error mapping, health, reflection, streaming, metrics."""

from __future__ import annotations

import time

import grpc
import jwt
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY

from services.shared import auth
from services.shared.channels import RenewingServiceToken, connect, service_channel

from .conftest import KEY, SERVICE, runtime_settings

pytestmark = pytest.mark.integration


def _call(channel: grpc.Channel, method: str, payload: bytes, token: str | None = None) -> bytes:
    metadata = auth.bearer_metadata(token) if token else None
    # No (de)serializers: the call sends and returns raw bytes.
    call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/{method}")
    return call(payload, metadata=metadata, timeout=5)


def _token(subject: str = "alice", role: auth.Role = auth.Role.PLAYER, ttl: int = 60) -> str:
    return auth.issue_token(KEY, subject, role, ttl)


def test_a_valid_token_makes_its_principal_current(channel: grpc.Channel) -> None:
    assert _call(channel, "Whoami", b"", _token("alice")) == b"alice/player"


def test_connect_attaches_the_bearer_token_to_every_call(probe_server: int) -> None:
    with connect(f"127.0.0.1:{probe_server}", _token("bot-7", auth.Role.BOT)) as chan:
        assert _call(chan, "Whoami", b"") == b"bot-7/bot"


@pytest.mark.parametrize(
    ("token", "fragment"),
    [
        (None, "no credentials"),
        (_token(ttl=-10), "expired"),
        (
            auth.issue_token("some-other-key-0123456789abcdef-forged", "mallory", auth.Role.ADMIN),
            "invalid",
        ),
        (
            jwt.encode({"iss": "croupier", "sub": "x", "exp": 2**40}, "k" * 32, "HS256"),
            "invalid",
        ),
        ("not-a-jwt", "invalid"),
    ],
    ids=["missing", "expired", "forged", "forged-other-key", "garbage"],
)
def test_missing_expired_or_forged_tokens_are_unauthenticated(
    channel: grpc.Channel, token: str | None, fragment: str
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        _call(channel, "Whoami", b"", token)
    assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert fragment in (info.value.details() or "")


def test_a_non_bearer_authorization_header_is_unauthenticated(channel: grpc.Channel) -> None:
    whoami: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(f"/{SERVICE}/Whoami")
    with pytest.raises(grpc.RpcError) as info:
        whoami(b"", metadata=(("authorization", "Basic abc"),), timeout=5)
    assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("InvalidArgument", grpc.StatusCode.INVALID_ARGUMENT),
        ("FailedPrecondition", grpc.StatusCode.FAILED_PRECONDITION),
        ("NotFound", grpc.StatusCode.NOT_FOUND),
        ("AlreadyExists", grpc.StatusCode.ALREADY_EXISTS),
        ("Conflict", grpc.StatusCode.ABORTED),
        ("Unauthenticated", grpc.StatusCode.UNAUTHENTICATED),
        ("PermissionDenied", grpc.StatusCode.PERMISSION_DENIED),
        ("ResourceExhausted", grpc.StatusCode.RESOURCE_EXHAUSTED),
        ("Unavailable", grpc.StatusCode.UNAVAILABLE),
    ],
)
def test_each_domain_error_maps_to_its_status_with_the_message_unchanged(
    channel: grpc.Channel, name: str, code: grpc.StatusCode
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        _call(channel, "Fail", name.encode(), _token())
    assert info.value.code() is code
    expected = "stream moved on" if name == "Conflict" else f"{name} happened"
    assert info.value.details() == expected


def test_an_unexpected_exception_is_internal_without_leaking_its_message(
    channel: grpc.Channel,
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        _call(channel, "Fail", b"boom", _token())
    assert info.value.code() is grpc.StatusCode.INTERNAL
    details = info.value.details()
    assert details is not None
    assert "internal error" in details
    assert KEY not in details and "secret" not in details


def test_server_streaming_passes_through_auth_and_errors(channel: grpc.Channel) -> None:
    stream: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(f"/{SERVICE}/Count")
    token = _token("carol")
    got = list(stream(b"5", metadata=auth.bearer_metadata(token), timeout=5))
    assert got == [f"{i}:carol".encode() for i in range(5)]

    received = []
    with pytest.raises(grpc.RpcError) as info:
        for item in stream(b"99", metadata=auth.bearer_metadata(token), timeout=5):
            received.append(item)
    assert len(received) == 3
    assert info.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.details() == "stream stopped at 3"

    with pytest.raises(grpc.RpcError) as info:
        list(stream(b"5", timeout=5))
    assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_health_reports_serving_for_each_service_and_overall_without_a_token(
    channel: grpc.Channel,
) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE):
        reply = stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_registered_services(channel: grpc.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (reply,) = list(stub.ServerReflectionInfo(iter([request]), timeout=5))
    names = {s.name for s in reply.list_services_response.service}
    assert {SERVICE, "grpc.health.v1.Health"} <= names


def _count(method: str, code: str) -> float:
    value = REGISTRY.get_sample_value(
        "croupier_grpc_requests_total",
        {"grpc_service": SERVICE, "grpc_method": method, "grpc_code": code},
    )
    return value or 0.0


def test_metrics_count_requests_by_method_and_final_code(channel: grpc.Channel) -> None:
    ok_before, denied_before = _count("Whoami", "OK"), _count("Whoami", "UNAUTHENTICATED")
    _call(channel, "Whoami", b"", _token())
    with pytest.raises(grpc.RpcError):
        _call(channel, "Whoami", b"")
    assert _count("Whoami", "OK") == ok_before + 1
    assert _count("Whoami", "UNAUTHENTICATED") == denied_before + 1
    latency = REGISTRY.get_sample_value(
        "croupier_grpc_request_duration_seconds_count",
        {"grpc_service": SERVICE, "grpc_method": "Whoami"},
    )
    assert latency is not None and latency >= 2


def test_the_principal_does_not_leak_into_the_next_call_on_the_same_thread(
    channel: grpc.Channel,
) -> None:
    for _ in range(20):
        _call(channel, "Whoami", b"", _token("dave"))
        with pytest.raises(grpc.RpcError) as info:
            _call(channel, "Whoami", b"")
        assert info.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_a_client_cancelling_a_stream_is_counted_as_cancelled(channel: grpc.Channel) -> None:
    before = _count("Count", "CANCELLED")
    count: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(f"/{SERVICE}/Count")
    call = count(b"100000", metadata=auth.bearer_metadata(_token()))
    for index, _ in enumerate(call):
        if index == 3:
            break
    call.cancel()
    deadline = time.monotonic() + 5
    while _count("Count", "CANCELLED") == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _count("Count", "CANCELLED") == before + 1


def test_service_channels_authenticate_as_the_calling_service(probe_server: int) -> None:
    settings = runtime_settings(service_name="table")
    with service_channel(f"127.0.0.1:{probe_server}", settings) as chan:
        assert _call(chan, "Whoami", b"") == b"table/service"


def test_service_tokens_are_renewed_before_they_expire(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr("services.shared.channels.time.monotonic", lambda: clock[0])
    source = RenewingServiceToken(KEY, "table", ttl_seconds=120)
    first = source()
    assert source() == first  # cached while fresh
    clock[0] += 61  # within a minute of expiry: a new token
    monkeypatch.setattr("services.shared.auth.time.time", lambda: 2_000_000_000.0)
    renewed = source()
    assert renewed != first
    assert auth.verify_token(KEY, first).subject == "table"
