from __future__ import annotations

import pytest

from services.ledger.settings import LedgerSettings
from services.ledger.store import Concurrency
from services.shared.replica_ack import ReplicaAck
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
        ("CROUPIER_LEDGER_SHARDS", "0", "1 \\(unsharded\\) to 1024"),
        ("CROUPIER_LEDGER_SHARDS", "1025", "1 \\(unsharded\\) to 1024"),
        ("CROUPIER_LEDGER_RECOVERY_MS", "10", "at least 50"),
        ("CROUPIER_LEDGER_WAIT_REPLICAS", "-1", "replicas >= 0"),
        ("CROUPIER_LEDGER_WAIT_REPLICAS_MS", "0", "ms >= 1"),
    ],
)
def test_bad_settings_stop_the_start(name: str, value: str, words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        LedgerSettings.from_env({"REDIS_URL": "redis://r:1/0", name: value})


def test_a_redis_url_is_required() -> None:
    with pytest.raises(SettingsError, match="REDIS_URL"):
        LedgerSettings.from_env({})


def test_shards_recovery_and_replica_waits_are_read() -> None:
    settings = LedgerSettings.from_env(
        {
            "REDIS_URL": "redis://r:1/0",
            "CROUPIER_LEDGER_SHARDS": "8",
            "CROUPIER_LEDGER_RECOVERY_MS": "250",
            "CROUPIER_LEDGER_WAIT_REPLICAS": "1",
            "CROUPIER_LEDGER_WAIT_REPLICAS_MS": "700",
        }
    )
    assert (settings.shards, settings.recovery_ms) == (8, 250)
    assert settings.replica_ack == ReplicaAck(1, 700)
