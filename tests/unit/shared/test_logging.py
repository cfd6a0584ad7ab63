"""Logging never writes secret values."""

from __future__ import annotations

import pytest

from services.shared.logging import redact_secrets


def test_secret_looking_fields_are_redacted() -> None:
    event = {"event": "x", "token": "abc", "auth_key": "k", "Authorization": "Bearer t", "n": 1}
    out = redact_secrets(None, "info", dict(event))
    assert out["token"] == out["auth_key"] == out["Authorization"] == "[redacted]"
    assert out["n"] == 1 and out["event"] == "x"


def test_console_tracebacks_never_print_local_variables(capsys: pytest.CaptureFixture[str]) -> None:
    import logging
    import secrets

    from services.shared.logging import configure_logging

    configure_logging("info", json=False)
    # Made at run time so the value cannot appear in the printed source lines.
    unrevealed_seed = secrets.token_hex(16)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("test").exception("failed with %s", len(unrevealed_seed))
    captured = capsys.readouterr().err
    assert "boom" in captured
    assert unrevealed_seed not in captured
