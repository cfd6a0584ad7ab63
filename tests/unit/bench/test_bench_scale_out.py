"""bench_scale_out's model: drawn from the saturated row with the most table replicas."""

from __future__ import annotations

from typing import Any

import pytest

from bench import bench_scale_out as so


def _row(replicas: int, redis: str, players: str, table_ms: float) -> dict[str, Any]:
    return {
        "row": "measured",
        "table_instances": replicas,
        "redis": redis,
        "players": players,
        "cpu_ms_per_hand_table": table_ms,
        "cpu_ms_per_hand_dealer": 5.0,
        "cpu_ms_per_hand_ledger": 3.0,
        "cpu_ms_per_hand_redis": 2.0,
        "cpu_ms_per_hand_client": 40.0,  # the players: not part of the deployment
    }


def test_the_model_uses_the_saturated_row_with_most_replicas_and_leaves_out_the_players() -> None:
    rows = [
        _row(1, "single", "saturated", 30.0),
        _row(3, "single", "saturated", 40.0),
        _row(3, "single", "paced", 90.0),  # a paced row's idle time inflates its cost
        _row(2, "cluster", "saturated", 50.0),
    ]
    single, cluster = so.model(rows)
    assert single["redis"] == "single" and single["table_instances"] == 3
    assert single["cpu_ms_per_hand_table"] == pytest.approx(40.0)
    assert single["cpu_ms_per_hand_services"] == pytest.approx(50.0)
    assert single["hands_per_s_per_core"] == pytest.approx(20.0)
    assert "cpu_ms_per_hand_client" not in single
    assert cluster["table_instances"] == 2
    assert cluster["hands_per_s_per_core"] == pytest.approx(1000 / 60)


def test_every_replica_count_runs_against_both_redis_kinds() -> None:
    assert so.REPLICAS == (1, 2, 3) and so.REDIS_KINDS == ("single", "cluster")
    assert all(so.TABLES % n == 0 for n in so.REPLICAS)
