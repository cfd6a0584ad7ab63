"""`make cluster-test` at reduced size: two bot tables through the whole replicated platform
(a 3-master, 3-replica Redis Cluster, 3 table replicas, 2 of each other service, 2 workers)
while a table replica, a worker and two Redis masters are failed (tests/harness/
cluster_test.py). About 80 s on this machine: the harness's own processes start in ~40 s."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.cluster_test import Size, run

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.mark.timeout(420)
def test_bot_tables_survive_replica_worker_and_master_failures(tmp_path: Path) -> None:
    lines: list[str] = []
    outcome = run(Size(tables=2, seats=3, hands_after=1), tmp_path, lines.append)
    report = "\n".join(lines)
    assert outcome.passed, report
    # Every fault was injected and followed by play, and each check ran.
    assert [f.recovered_s is not None for f in outcome.faults] == [True] * 4, report
    assert len(outcome.checks) == 8, report
