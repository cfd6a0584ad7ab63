from __future__ import annotations

import pytest

from services.ledger.settings import LedgerSettings
from services.ledger.store import Concurrency
from services.shared.settings import SettingsError


def test_defaults_fall_back_to_redis_url() -> None:
    settings = LedgerSettings.from_env({"REDIS_URL": "redis://r:1/0"})
    assert settings == LedgerSettings("redis://r:1/0", "ledger", 48, Concurrency.CHECKED)


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("CROUPIER_LEDGER_IDEMPOTENCY_TTL_HOURS", "23", "at least 24 hours"),
        ("CROUPIER_LEDGER_CONCURRENCY", "yolo", "'checked' or 'serial'"),
        ("CROUPIER_LEDGER_NAMESPACE", "a{b}", "letters, digits"),
    ],
)
def test_bad_settings_stop_the_start(name: str, value: str, words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        LedgerSettings.from_env({"REDIS_URL": "redis://r:1/0", name: value})


def test_a_redis_url_is_required() -> None:
    with pytest.raises(SettingsError, match="REDIS_URL"):
        LedgerSettings.from_env({})
