"""Connection settings and the one call path every SDK client goes through.

    settings = ClientSettings.from_env()               # CROUPIER_*_TARGET, CROUPIER_TOKEN
    settings = ClientSettings(token=token, timeout_s=5)  # or spelled out

Every unary call gets a deadline (`timeout_s`), a bearer token (a string, or a callable that
returns the current one) and, for the failures where trying again is safe, retries with
backoff: UNAVAILABLE always, and ABORTED unless the request names an `expected_version` (then
the caller must look at the table again, so ABORTED is theirs). A command is retried as the
very same request, idempotency key included, so the service applies it once however many
attempts reach it. Every refusal is raised as a `services.sdk.errors.CroupierError`.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import grpc
from google.protobuf.message import Message

from services.sdk.errors import CroupierError, from_rpc_error
from services.shared.channels import TokenSource, connect
from services.shared.settings import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_PORTS,
    TlsSettings,
    env_str,
    target_env_name,
)

TOKEN_ENV = "CROUPIER_TOKEN"
SERVICES = ("table", "dealer", "evaluator", "ledger")
Response = TypeVar("Response", bound=Message)
Response_co = TypeVar("Response_co", bound=Message, covariant=True)


class UnaryMethod(Protocol[Response_co]):
    def __call__(self, request: Any, *, timeout: float | None = ...) -> Response_co: ...


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How failed calls are tried again: at most `attempts` in all, waiting `first_backoff_s`
    then twice as long each time (never above `max_backoff_s`, with jitter)."""

    attempts: int = 6
    first_backoff_s: float = 0.05
    max_backoff_s: float = 2.0

    def delays(self, rng: random.Random) -> list[float]:
        """The waits before the 2nd, 3rd, ... attempt."""
        out: list[float] = []
        delay = self.first_backoff_s
        for _ in range(max(self.attempts - 1, 0)):
            out.append(delay * (0.5 + rng.random()))
            delay = min(self.max_backoff_s, delay * 2)
        return out


NO_RETRIES = RetryPolicy(attempts=1)


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """Where the services are and how to call them."""

    table: str = f"127.0.0.1:{DEFAULT_PORTS['table']}"
    dealer: str = f"127.0.0.1:{DEFAULT_PORTS['dealer']}"
    evaluator: str = f"127.0.0.1:{DEFAULT_PORTS['evaluator']}"
    ledger: str = f"127.0.0.1:{DEFAULT_PORTS['ledger']}"
    token: TokenSource | None = field(default=None, repr=False)
    tls: TlsSettings | None = None
    # Deadline of one attempt of a unary call, in seconds.
    timeout_s: float = 10.0
    retry: RetryPolicy = RetryPolicy()
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    # Extra client interceptors, outermost first (tracing, fault injection in tests).
    interceptors: Sequence[grpc.UnaryUnaryClientInterceptor | grpc.StreamStreamClientInterceptor
                           | grpc.UnaryStreamClientInterceptor] = ()  # fmt: skip

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> ClientSettings:
        """`CROUPIER_<SVC>_TARGET` for each service (default 127.0.0.1 and its usual port),
        `CROUPIER_TOKEN`, and the TLS variables clients read (`CROUPIER_TLS_CA`, ...)."""
        targets = {name: env_str(target_env_name(name), "", env=env) for name in SERVICES}
        values: dict[str, Any] = {k: v for k, v in targets.items() if v}
        token = env_str(TOKEN_ENV, "", env=env)
        if token:
            values["token"] = token
        tls = TlsSettings.from_env(env)
        if tls.client_enabled:
            values["tls"] = tls
        values.update(overrides)
        return cls(**values)

    def target(self, service: str) -> str:
        return str(getattr(self, service))


def new_key(what: str = "cmd") -> str:
    """A fresh idempotency key: one per command, reused by every retry of that command."""
    return f"{what}-{uuid.uuid4().hex}"


def caller_of(token: TokenSource | None) -> tuple[str, str] | None:
    """(subject, role) the token names, read without checking its signature (the services
    check it): only to name the caller's own keys, never to decide anything."""
    if token is None:
        return None
    text = token() if callable(token) else token
    try:
        import jwt

        claims = jwt.decode(text, options={"verify_signature": False})
    except Exception:  # not a JWT: the service will say what is wrong with it
        return None
    return str(claims.get("sub", "")), str(claims.get("role", ""))


def open_channel(settings: ClientSettings, service: str) -> grpc.Channel:
    channel = connect(
        settings.target(service),
        settings.token,
        tls=settings.tls,
        max_message_bytes=settings.max_message_bytes,
        # A table's calls to its preferred replica of a static list (rendezvous.py).
        affinity=service == "table",
    )
    if settings.interceptors:
        channel = grpc.intercept_channel(channel, *settings.interceptors)
    return channel


def _wants_fresh_look(request: Message) -> bool:
    """An ABORTED answer to a request with an expected version means "look again": never
    retried blindly. (Only the table's commands carry one.)"""
    return bool(getattr(request, "expected_version", 0))


class Caller:
    """Calls one service's unary methods with the settings' deadline, retries and errors."""

    def __init__(
        self,
        service: str,
        settings: ClientSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.service = service
        self.settings = settings
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.retries = 0  # attempts after the first, over this caller's life

    def call(
        self,
        name: str,
        method: UnaryMethod[Response],
        request: Message,
        *,
        timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> Response:
        """`method(request)`, tried again on UNAVAILABLE (and ABORTED, see the module)."""
        policy = retry or self.settings.retry
        delays = policy.delays(self._rng)
        label = f"{self.service}.{name}"
        for attempt in range(len(delays) + 1):
            try:
                return method(request, timeout=timeout_s or self.settings.timeout_s)
            except grpc.RpcError as exc:
                error = from_rpc_error(exc, label)
                if attempt >= len(delays) or not self.retryable(error, request):
                    raise error from exc
            self.retries += 1
            self._sleep(delays[attempt])
        raise AssertionError("unreachable")  # the loop returns or raises

    @staticmethod
    def retryable(error: CroupierError, request: Message) -> bool:
        if error.code is grpc.StatusCode.UNAVAILABLE:
            return True
        return error.code is grpc.StatusCode.ABORTED and not _wants_fresh_look(request)
