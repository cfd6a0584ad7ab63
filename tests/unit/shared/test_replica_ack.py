"""ReplicaAck's settings and how WAIT's replies are read (no Redis: the wait itself is
exercised on a real cluster in tests/integration/cluster/test_*_replica_ack.py)."""

from __future__ import annotations

import pytest
import redis
from redis.exceptions import MovedError

from services.shared.errors import Unavailable
from services.shared.replica_ack import ReplicaAck, check
from services.shared.settings import SettingsError


def test_off_by_default_and_read_per_deployable() -> None:
    assert ReplicaAck.from_env("CROUPIER_TABLE", {}) == ReplicaAck(0, 500)
    env = {"CROUPIER_DEALER_WAIT_REPLICAS": "2", "CROUPIER_DEALER_WAIT_REPLICAS_MS": "80"}
    assert ReplicaAck.from_env("CROUPIER_DEALER", env) == ReplicaAck(2, 80)
    assert ReplicaAck.from_env("CROUPIER_TABLE", env) == ReplicaAck(0, 500)


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("CROUPIER_TABLE_WAIT_REPLICAS", "-1", "replicas >= 0"),
        ("CROUPIER_TABLE_WAIT_REPLICAS_MS", "0", "ms >= 1"),
    ],
)
def test_a_bad_setting_names_itself(name: str, value: str, words: str) -> None:
    with pytest.raises(SettingsError, match=words) as info:
        ReplicaAck.from_env("CROUPIER_TABLE", {name: value})
    assert name in str(info.value)


def test_enough_replicas_acknowledge() -> None:
    check([b"OK", 2], ReplicaAck(2, 100), "append")


def test_too_few_replicas_in_time_is_unavailable_with_a_retry_hint() -> None:
    with pytest.raises(Unavailable) as info:
        check([b"OK", 0], ReplicaAck(1, 300), "append")
    assert str(info.value) == (
        "append not confirmed by 1 replica(s) within 300 ms; retry with the same idempotency key"
    )


@pytest.mark.parametrize(
    "refusal",
    [MovedError("3999 127.0.0.1:7001"), redis.ResponseError("READONLY You can't write")],
)
def test_a_refused_marker_is_unavailable(refusal: redis.ResponseError) -> None:
    with pytest.raises(Unavailable, match=r"failing over \((MOVED|READONLY)\); retry with"):
        check([refusal, 1], ReplicaAck(1, 300), "commit")
