"""Runtime settings every gRPC service shares, read once from environment variables.

Each deployable builds one frozen `RuntimeSettings` at start-up (plus its own frozen settings
for service-specific values, read with the `env_*` / `require_env` helpers below). A missing
or malformed value stops the process before it binds a port, with a message naming the
variable and what it is for.

Variables (``<SVC>`` is the upper-cased service name, e.g. ``TABLE``):

==============================  ==========================================================
``CROUPIER_<SVC>_ADDR``         listen address ``host:port``; default
                                ``$CROUPIER_BIND_HOST:<default port>`` (table 50051,
                                dealer 50052, evaluator 50053, ledger 50054)
``CROUPIER_BIND_HOST``          host part of the default listen address (127.0.0.1;
                                ``0.0.0.0`` in containers)
``CROUPIER_<SVC>_METRICS_PORT`` Prometheus ``/metrics`` port (9100 + n); 0 disables it
``CROUPIER_METRICS_HOST``       metrics bind host (defaults to the bind host)
``CROUPIER_<SVC>_TARGET``       where *clients* reach the service (``dealer:50052``); read by
                                the services that call it, via `require_env`
``CROUPIER_AUTH_PUBLIC_KEYS_FILE`` the token issuers' Ed25519 public keys (service
                                identities; `croupier keys DIR` writes ``DIR/public-keys``)
``CROUPIER_AUTH_SIGNING_KEY_FILE`` this process's own Ed25519 private key, for a service that
                                calls others (table, workers); the others hold none
``CROUPIER_AUTH_ISSUER``        the issuer that key belongs to (defaults to the service name)
``CROUPIER_AUTH_KEY``           development/test mode instead of the three above: one HMAC
                                secret that signs and verifies every role
``CROUPIER_LOG_LEVEL``          debug / info / warning / error (info)
``CROUPIER_LOG_JSON``           1 for one JSON object per log line (0)
``CROUPIER_MAX_MESSAGE_BYTES``  cap on received and sent gRPC messages (4 MiB)
``CROUPIER_GRACE_SECONDS``      how long in-flight RPCs may finish on SIGTERM (5)
``CROUPIER_MAX_WORKERS``        threads serving RPCs; a WatchTable or Play stream holds one (32)
``CROUPIER_TLS_CERT``           PEM certificate chain: the server's own certificate, also
                                presented as client certificate on outgoing calls (mTLS)
``CROUPIER_TLS_KEY``            PEM private key for ``CROUPIER_TLS_CERT``
``CROUPIER_TLS_CLIENT_CA``      PEM CA bundle; when set the server *requires* client
                                certificates signed by it (mutual TLS)
``CROUPIER_TLS_CA``             PEM CA bundle clients use to verify servers
==============================  ==========================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from services.shared import auth

DEFAULT_PORTS: Mapping[str, int] = {
    "table": 50051,
    "dealer": 50052,
    "evaluator": 50053,
    "ledger": 50054,
}
DEFAULT_METRICS_PORTS: Mapping[str, int] = {
    "table": 9100,
    "dealer": 9101,
    "evaluator": 9102,
    "ledger": 9103,
}
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
AUTH_KEY_ENV = "CROUPIER_AUTH_KEY"
PUBLIC_KEYS_ENV = "CROUPIER_AUTH_PUBLIC_KEYS_FILE"
SIGNING_KEY_ENV = "CROUPIER_AUTH_SIGNING_KEY_FILE"
ISSUER_ENV = "CROUPIER_AUTH_ISSUER"
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


class SettingsError(SystemExit):
    """A required setting is missing or malformed.

    It is a SystemExit on purpose: raised while a service starts, Python prints the message
    (not a traceback) and exits with status 1, which is what an operator needs to see.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def _environ(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def env_str(name: str, default: str = "", *, env: Mapping[str, str] | None = None) -> str:
    """The variable's value with surrounding blanks removed, or `default` when unset/blank."""
    value = _environ(env).get(name, "").strip()
    return value or default


def env_int(name: str, default: int, *, env: Mapping[str, str] | None = None) -> int:
    """An integer variable; a value that is not an integer is a start-up error."""
    raw = env_str(name, env=env)
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise SettingsError(f"{name}={raw!r} is not an integer") from exc


def env_float(name: str, default: float, *, env: Mapping[str, str] | None = None) -> float:
    """A number variable; a value that is not a number is a start-up error."""
    raw = env_str(name, env=env)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise SettingsError(f"{name}={raw!r} is not a number") from exc


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_bool(name: str, default: bool, *, env: Mapping[str, str] | None = None) -> bool:
    """A yes/no variable (1/0, true/false, yes/no, on/off)."""
    raw = env_str(name, env=env).lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise SettingsError(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no or on/off")


def require_env(name: str, purpose: str, *, env: Mapping[str, str] | None = None) -> str:
    """The value of a required variable; unset or blank stops start-up naming `purpose`.

    Example: ``require_env("CROUPIER_DEALER_TARGET", "address of the dealer service the
    table asks for shuffles")``.
    """
    value = env_str(name, env=env)
    if not value:
        raise SettingsError(f"missing required environment variable {name}: {purpose}")
    return value


def env_prefix(service_name: str) -> str:
    """``CROUPIER_<SVC>_`` for a service name (dashes become underscores)."""
    return "CROUPIER_" + service_name.upper().replace("-", "_") + "_"


def target_env_name(service_name: str) -> str:
    """Name of the variable through which clients find `service_name` (``CROUPIER_X_TARGET``)."""
    return env_prefix(service_name) + "TARGET"


def _read_pem(name: str, env: Mapping[str, str] | None) -> bytes | None:
    path = env_str(name, env=env)
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise SettingsError(f"{name}={path!r} cannot be read: {exc.strerror}") from exc


@dataclass(frozen=True, slots=True)
class TlsSettings:
    """TLS material (PEM bytes). All empty means plaintext, which is the local default."""

    cert_chain: bytes | None = field(default=None, repr=False)
    private_key: bytes | None = field(default=None, repr=False)
    client_ca: bytes | None = field(default=None, repr=False)
    server_ca: bytes | None = field(default=None, repr=False)

    @property
    def server_enabled(self) -> bool:
        """The server listens with TLS (it has a certificate and key)."""
        return self.cert_chain is not None and self.private_key is not None

    @property
    def mutual(self) -> bool:
        """The server requires client certificates signed by `client_ca`."""
        return self.server_enabled and self.client_ca is not None

    @property
    def client_enabled(self) -> bool:
        """Outgoing calls use TLS (a CA to verify servers is configured)."""
        return self.server_ca is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TlsSettings:
        tls = cls(
            cert_chain=_read_pem("CROUPIER_TLS_CERT", env),
            private_key=_read_pem("CROUPIER_TLS_KEY", env),
            client_ca=_read_pem("CROUPIER_TLS_CLIENT_CA", env),
            server_ca=_read_pem("CROUPIER_TLS_CA", env),
        )
        if (tls.cert_chain is None) != (tls.private_key is None):
            raise SettingsError("set both CROUPIER_TLS_CERT and CROUPIER_TLS_KEY, or neither")
        if tls.client_ca is not None and not tls.server_enabled:
            raise SettingsError(
                "CROUPIER_TLS_CLIENT_CA (mutual TLS) needs CROUPIER_TLS_CERT and CROUPIER_TLS_KEY"
            )
        return tls

    def describe(self) -> str:
        if not self.server_enabled:
            return "plaintext"
        return "mutual TLS" if self.mutual else "TLS"


@dataclass(frozen=True, slots=True)
class RuntimeSettings:
    """What every service's gRPC runtime needs. Build with `from_env`."""

    service_name: str
    address: str
    # The shared development key; ignored when `service_keys` is set.
    auth_key: str = field(default="", repr=False)
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"
    log_level: str = "info"
    log_json: bool = False
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    grace_seconds: float = 5.0
    max_workers: int = 32
    tls: TlsSettings = field(default_factory=TlsSettings)
    service_keys: auth.ServiceKeys | None = None

    @property
    def credentials(self) -> auth.Credentials:
        """How this service verifies tokens and signs its own."""
        if self.service_keys is not None:
            return self.service_keys
        return auth.SharedKey(self.auth_key)

    @property
    def shared_key_mode(self) -> bool:
        return self.service_keys is None

    @classmethod
    def from_env(
        cls,
        service_name: str,
        default_port: int | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> RuntimeSettings:
        """Read the settings of `service_name` (see the module docstring for the variables)."""
        prefix = env_prefix(service_name)
        port = default_port if default_port is not None else DEFAULT_PORTS.get(service_name, 0)
        bind_host = env_str("CROUPIER_BIND_HOST", "127.0.0.1", env=env)
        address = env_str(prefix + "ADDR", f"{bind_host}:{port}", env=env)
        _check_address(prefix + "ADDR", address)
        level = env_str("CROUPIER_LOG_LEVEL", "info", env=env).lower()
        if level not in LOG_LEVELS:
            raise SettingsError(f"CROUPIER_LOG_LEVEL={level!r}; use one of {', '.join(LOG_LEVELS)}")
        settings = cls(
            service_name=service_name,
            address=address,
            auth_key=env_str(AUTH_KEY_ENV, env=env),
            service_keys=service_keys_from_env(service_name, env),
            metrics_port=env_int(
                prefix + "METRICS_PORT", DEFAULT_METRICS_PORTS.get(service_name, 0), env=env
            ),
            metrics_host=env_str("CROUPIER_METRICS_HOST", bind_host, env=env),
            log_level=level,
            log_json=env_bool("CROUPIER_LOG_JSON", False, env=env),
            max_message_bytes=env_int(
                "CROUPIER_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES, env=env
            ),
            grace_seconds=env_float("CROUPIER_GRACE_SECONDS", 5.0, env=env),
            max_workers=env_int("CROUPIER_MAX_WORKERS", 32, env=env),
            tls=TlsSettings.from_env(env),
        )
        if settings.service_keys is None and not settings.auth_key:
            raise SettingsError(
                f"{PUBLIC_KEYS_ENV} is not set: the token issuers' public keys "
                "(`croupier keys DIR` writes them; `croupier run` does it for you), "
                f"or for development and tests only {AUTH_KEY_ENV}, one shared secret"
            )
        if settings.max_message_bytes <= 0:
            raise SettingsError("CROUPIER_MAX_MESSAGE_BYTES must be positive")
        if settings.max_workers <= 0:
            raise SettingsError("CROUPIER_MAX_WORKERS must be positive")
        return settings


def service_keys_from_env(
    issuer: str, env: Mapping[str, str] | None = None
) -> auth.ServiceKeys | None:
    """The service identities the environment names, None in shared-key mode."""
    public = env_str(PUBLIC_KEYS_ENV, env=env)
    signing = env_str(SIGNING_KEY_ENV, env=env)
    if not public:
        if signing:
            raise SettingsError(f"{SIGNING_KEY_ENV} needs {PUBLIC_KEYS_ENV} beside it")
        return None
    if env_str(AUTH_KEY_ENV, env=env):
        raise SettingsError(
            f"set {PUBLIC_KEYS_ENV} (service identities) or {AUTH_KEY_ENV} (shared development "
            "key), not both"
        )
    try:
        return auth.service_keys(
            Path(public),
            env_str(ISSUER_ENV, issuer, env=env),
            Path(signing) if signing else None,
        )
    except ValueError as exc:
        raise SettingsError(f"{exc} ({PUBLIC_KEYS_ENV} / {SIGNING_KEY_ENV})") from exc


def _check_address(name: str, address: str) -> None:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise SettingsError(f"{name}={address!r} is not host:port (e.g. 127.0.0.1:50051)")
