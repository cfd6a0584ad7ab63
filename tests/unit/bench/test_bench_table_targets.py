"""bench_table_targets' target rows: each ratio is measured / goal, met by its own rule."""

from __future__ import annotations

from bench import bench_table_targets as bt


def measured(**columns: float) -> dict[str, object]:
    return {"kind": "measured", "name": "row", **columns}


def test_targets_are_ratios_of_the_same_run_s_measurements() -> None:
    floor = [measured(hands_per_s=150.0), measured(hands_per_s=200.0)]  # the better one
    one = measured(hands_per_s=80.0)
    two = measured(hands_per_s=120.0)
    paced = measured(p99_ms=8.0, table_rss_mib=300.0)
    crowded = measured(p99_ms=12.0, table_rss_mib=700.0)
    rows = {row["name"]: row for row in bt.targets(floor, one, two, paced, crowded, 2000)}
    share = rows["full stack / aio+stream floor"]
    assert (share["measured"], share["ratio"], share["met"]) == (0.4, 0.8, "NO")
    scale = rows["2 table processes / 1 (hands/s)"]
    assert (scale["measured"], scale["met"]) == (1.5, "yes")
    p99 = rows["Act->event p99 ms, 100 tables at 30 hands/s"]
    assert (p99["ratio"], p99["met"]) == (0.8, "yes")
    memory = rows["table RSS MiB with 2000 open streams"]
    assert memory["met"] == "yes" and memory["ratio"] == 700.0 / 1024.0
    slowdown = rows["Act p99 with 2000 open streams / without"]
    assert (slowdown["measured"], slowdown["met"]) == (1.5, "NO")
