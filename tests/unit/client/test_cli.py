"""The croupier CLI: dev tokens and service selection."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.client.cli import app
from services.shared import auth

KEY = "cli-test-key-0123456789abcdef-0123456789"
runner = CliRunner()


def test_token_prints_a_token_signed_with_the_env_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CROUPIER_AUTH_KEY", KEY)
    result = runner.invoke(
        app, ["token", "--subject", "bob", "--role", "bot", "--state-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    principal = auth.verify_token(KEY, result.stdout.strip())
    assert principal == auth.Principal("bob", auth.Role.BOT)


def test_token_falls_back_to_the_operator_key_croupier_run_keeps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("CROUPIER_AUTH_KEY", "CROUPIER_AUTH_SIGNING_KEY_FILE"):
        monkeypatch.delenv(name, raising=False)
    written = auth.write_keys(tmp_path / "keys")
    verifier = auth.service_keys(written["public"])
    result = runner.invoke(app, ["token", "--subject", "al", "--state-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip().splitlines()[-1]
    assert auth.verify_token(verifier, token) == auth.Principal("al", auth.Role.PLAYER)


def test_the_operator_key_cannot_sign_for_a_deployable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CROUPIER_AUTH_KEY", raising=False)
    auth.write_keys(tmp_path / "keys")
    result = runner.invoke(
        app,
        ["token", "--subject", "table", "--role", "service", "--state-dir", str(tmp_path)],
    )
    assert result.exit_code == 2
    assert "may not sign a service token for 'table'" in result.output
    assert "Traceback" not in result.output


def test_keys_writes_private_keys_0600_and_the_public_keys(tmp_path: Path) -> None:
    result = runner.invoke(app, ["keys", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    for issuer in auth.ISSUERS:
        path = tmp_path / "k" / f"{issuer}.key"
        assert path.stat().st_mode & 0o777 == 0o600
    public = auth.service_keys(tmp_path / "k" / "public-keys")
    assert set(public.public_keys) == set(auth.ISSUERS)
    before = (tmp_path / "k" / "table.key").read_bytes()
    assert runner.invoke(app, ["keys", str(tmp_path / "k")]).exit_code == 0
    assert (tmp_path / "k" / "table.key").read_bytes() == before, "an existing key is kept"


def test_token_without_any_key_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CROUPIER_AUTH_KEY", raising=False)
    monkeypatch.delenv("CROUPIER_AUTH_SIGNING_KEY_FILE", raising=False)
    result = runner.invoke(app, ["token", "--subject", "al", "--state-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "croupier keys" in result.output and "CROUPIER_AUTH_KEY" in result.output


def test_serve_rejects_a_name_that_is_not_a_deployable() -> None:
    for name in ("nope", "shared", "../x"):
        result = runner.invoke(app, ["serve", name])
        assert result.exit_code == 2
        assert "no deployable named" in result.output
