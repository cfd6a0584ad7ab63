"""The `python -m bench` harness: discovery, selection, results document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bench.__main__ as harness


def test_discovers_every_bench_module() -> None:
    assert "bench_runtime" in harness.discover()
    assert all(name.startswith("bench_") for name in harness.discover())


def test_only_accepts_names_with_or_without_prefix_and_rejects_unknown_ones() -> None:
    modules = ["bench_a", "bench_b"]
    assert harness.selected(modules, ["b"]) == ["bench_b"]
    assert harness.selected(modules, ["bench_a"]) == ["bench_a"]
    assert harness.selected(modules, []) == modules
    with pytest.raises(SystemExit, match="bench_c"):
        harness.selected(modules, ["c"])


def test_results_record_rows_and_how_they_were_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness, "RESULTS_DIR", tmp_path)
    path = harness.write_results("bench_x", [{"variant": "a", "ops_per_s": 1.5}], True, 0.25)
    document = json.loads(path.read_text())
    assert document["rows"] == [{"variant": "a", "ops_per_s": 1.5}]
    assert document["quick"] is True and "bench" in document["command"]
    assert document["machine"]["cpus"] >= 1
