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


def test_token_falls_back_to_the_key_croupier_run_keeps(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CROUPIER_AUTH_KEY", raising=False)
    (tmp_path / "auth-key").write_text(KEY + "\n")
    result = runner.invoke(app, ["token", "--subject", "al", "--state-dir", str(tmp_path)])
    assert result.exit_code == 0
    token = result.stdout.strip().splitlines()[-1]
    assert auth.verify_token(KEY, token).role is auth.Role.PLAYER


def test_token_without_any_key_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CROUPIER_AUTH_KEY", raising=False)
    result = runner.invoke(app, ["token", "--subject", "al", "--state-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "CROUPIER_AUTH_KEY" in result.output


def test_serve_rejects_a_name_that_is_not_a_deployable() -> None:
    for name in ("nope", "shared", "../x"):
        result = runner.invoke(app, ["serve", name])
        assert result.exit_code == 2
        assert "no deployable named" in result.output
