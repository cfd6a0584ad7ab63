"""Client channels: one line to reach a croupier service with a bearer token attached.

    channel = connect("127.0.0.1:50051", token)                 # a test or a player client
    channel = service_channel(settings.dealer_target, runtime)  # service to service

Every call on the channel carries ``authorization: Bearer <token>``. `token` may be a string
or a zero-argument callable returning the current token, so a long-lived channel can renew
its token before it expires (`service_channel` does exactly that).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import grpc
import grpc.aio

from services.shared import auth
from services.shared.balancing import balanced_target
from services.shared.rendezvous import RendezvousChannel, replica_list
from services.shared.settings import DEFAULT_MAX_MESSAGE_BYTES, RuntimeSettings, TlsSettings

TokenSource = str | Callable[[], str]


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: Any


class BearerTokenInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds the bearer token to the metadata of every call (unary and streaming)."""

    def __init__(self, token: TokenSource) -> None:
        self._token = token

    def _details(self, details: Any) -> _CallDetails:
        token = self._token() if callable(self._token) else self._token
        metadata = [*(details.metadata or ()), *auth.bearer_metadata(token)]
        return _CallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def channel_options(max_message_bytes: int) -> list[tuple[str, int | str]]:
    return [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
    ]


def connect(
    address: str,
    token: TokenSource | None = None,
    *,
    tls: TlsSettings | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    affinity: bool = False,
) -> grpc.Channel:
    """A channel to `address` (one server, or replicas balanced round-robin: balancing.py);
    TLS when `tls` has a CA (mutual when it also has a cert/key). `affinity`, for a static
    list of replicas: each table's calls to its preferred replica, failing over to the next
    (rendezvous.py), instead of round-robin."""
    replicas = replica_list(address) if affinity else []
    if len(replicas) > 1:
        return RendezvousChannel(
            replicas,
            lambda replica: connect(replica, token, tls=tls, max_message_bytes=max_message_bytes),
        )
    address, balancing = balanced_target(address)
    options = [*channel_options(max_message_bytes), *balancing]
    if tls is not None and tls.client_enabled:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=tls.server_ca,
            private_key=tls.private_key,
            certificate_chain=tls.cert_chain,
        )
        channel = grpc.secure_channel(address, credentials, options=options)
    else:
        channel = grpc.insecure_channel(address, options=options)
    if token is None:
        return channel
    return grpc.intercept_channel(channel, BearerTokenInterceptor(token))


def aio_connect(
    address: str,
    *,
    tls: TlsSettings | None = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
) -> grpc.aio.Channel:
    """`connect` for grpc.aio (build it on the loop that uses it); callers send their token
    as call metadata."""
    address, balancing = balanced_target(address)
    options = [*channel_options(max_message_bytes), *balancing]
    if tls is not None and tls.client_enabled:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=tls.server_ca,
            private_key=tls.private_key,
            certificate_chain=tls.cert_chain,
        )
        return grpc.aio.secure_channel(address, credentials, options=options)
    return grpc.aio.insecure_channel(address, options=options)


class RenewingServiceToken:
    """A `service`-role token for this process (or, with `role`, the token of a player this
    process plays, such as a hosted bot), re-issued when within a minute of expiry."""

    def __init__(
        self,
        key: str | auth.Credentials,
        subject: str,
        ttl_seconds: int = 3600,
        role: auth.Role = auth.Role.SERVICE,
    ) -> None:
        self._key, self._subject, self._ttl, self._role = key, subject, ttl_seconds, role
        self._lock = threading.Lock()
        self._token = ""
        self._renew_at = 0.0

    def __call__(self) -> str:
        with self._lock:
            now = time.monotonic()
            if now >= self._renew_at:
                self._token = auth.issue_token(self._key, self._subject, self._role, self._ttl)
                self._renew_at = now + max(self._ttl - 60, self._ttl / 2)
            return self._token


def service_channel(target: str, settings: RuntimeSettings) -> grpc.Channel:
    """A channel from this service to another, authenticated as role `service`."""
    token = RenewingServiceToken(settings.credentials, settings.service_name)
    return connect(target, token, tls=settings.tls, max_message_bytes=settings.max_message_bytes)
