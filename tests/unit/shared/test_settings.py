"""RuntimeSettings and the env helpers: defaults, overrides and clear start-up errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.shared.settings import (
    RuntimeSettings,
    SettingsError,
    env_bool,
    env_int,
    require_env,
)

KEY = {"CROUPIER_AUTH_KEY": "k" * 32}


@pytest.mark.parametrize(
    ("service", "port", "metrics"),
    [
        ("table", 50051, 9100),
        ("dealer", 50052, 9101),
        ("evaluator", 50053, 9102),
        ("ledger", 50054, 9103),
    ],
)
def test_each_service_has_its_documented_default_ports(
    service: str, port: int, metrics: int
) -> None:
    settings = RuntimeSettings.from_env(service, env=KEY)
    assert settings.address == f"127.0.0.1:{port}"
    assert settings.metrics_port == metrics


def test_address_bind_host_and_metrics_port_are_overridable() -> None:
    env = {**KEY, "CROUPIER_BIND_HOST": "0.0.0.0", "CROUPIER_DEALER_METRICS_PORT": "0"}
    settings = RuntimeSettings.from_env("dealer", env=env)
    assert settings.address == "0.0.0.0:50052"
    assert settings.metrics_port == 0
    explicit = RuntimeSettings.from_env("dealer", env={**env, "CROUPIER_DEALER_ADDR": "[::]:6000"})
    assert explicit.address == "[::]:6000"


def test_a_missing_auth_key_is_a_start_up_error_naming_the_variable() -> None:
    with pytest.raises(SettingsError, match="CROUPIER_AUTH_KEY"):
        RuntimeSettings.from_env("table", env={})


def test_the_auth_key_never_appears_in_the_settings_repr() -> None:
    settings = RuntimeSettings.from_env("table", env=KEY)
    assert "k" * 32 not in repr(settings)


@pytest.mark.parametrize(
    "env",
    [
        {"CROUPIER_TABLE_ADDR": "no-port"},
        {"CROUPIER_TABLE_METRICS_PORT": "ninety"},
        {"CROUPIER_LOG_LEVEL": "loud"},
        {"CROUPIER_LOG_JSON": "maybe"},
        {"CROUPIER_MAX_MESSAGE_BYTES": "0"},
        {"CROUPIER_TLS_CERT": "/nonexistent/cert.pem"},
    ],
)
def test_malformed_values_are_start_up_errors(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError) as info:
        RuntimeSettings.from_env("table", env={**KEY, **env})
    assert next(iter(env)) in str(info.value)


def test_tls_needs_both_certificate_and_key(tmp_path: Path) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_bytes(b"-----BEGIN CERTIFICATE-----\n")
    with pytest.raises(SettingsError, match="CROUPIER_TLS_KEY"):
        RuntimeSettings.from_env("table", env={**KEY, "CROUPIER_TLS_CERT": str(cert)})


def test_mutual_tls_is_on_when_a_client_ca_is_configured(tmp_path: Path) -> None:
    for name in ("cert", "key", "ca"):
        (tmp_path / f"{name}.pem").write_bytes(name.encode())
    env = {
        **KEY,
        "CROUPIER_TLS_CERT": str(tmp_path / "cert.pem"),
        "CROUPIER_TLS_KEY": str(tmp_path / "key.pem"),
        "CROUPIER_TLS_CLIENT_CA": str(tmp_path / "ca.pem"),
    }
    tls = RuntimeSettings.from_env("table", env=env).tls
    assert tls.server_enabled and tls.mutual and tls.describe() == "mutual TLS"


def test_require_env_names_the_variable_and_its_purpose() -> None:
    with pytest.raises(SettingsError) as info:
        require_env("CROUPIER_DEALER_TARGET", "where the table asks for shuffles", env={})
    assert "CROUPIER_DEALER_TARGET" in str(info.value)
    assert "where the table asks for shuffles" in str(info.value)
    assert require_env("X", "y", env={"X": " host:1 "}) == "host:1"


def test_env_helpers_parse_their_types() -> None:
    assert env_int("N", 3, env={}) == 3
    assert env_int("N", 3, env={"N": "12"}) == 12
    assert env_bool("B", False, env={"B": "yes"}) is True
    assert env_bool("B", True, env={"B": "off"}) is False
