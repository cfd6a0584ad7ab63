"""Logging never writes secret values."""

from __future__ import annotations

from services.shared.logging import redact_secrets


def test_secret_looking_fields_are_redacted():
    event = {"event": "x", "token": "abc", "auth_key": "k", "Authorization": "Bearer t", "n": 1}
    out = redact_secrets(None, "info", dict(event))
    assert out["token"] == out["auth_key"] == out["Authorization"] == "[redacted]"
    assert out["n"] == 1 and out["event"] == "x"
