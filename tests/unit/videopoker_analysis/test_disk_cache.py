"""The advisor's tables on disk: read back exactly as built, built again when unreadable,
never read across code versions, and nothing written without a directory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from services.videopoker_analysis import disk_cache
from services.videopoker_analysis.advisor import advise
from services.videopoker_analysis.tables import tables


class Builder:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> disk_cache.Arrays:
        self.calls += 1
        return {"a": np.arange(5, dtype=np.int64), "b": np.ones((2, 3), dtype=np.int8)}


def test_without_a_directory_every_call_builds_and_nothing_is_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(disk_cache.ENV, raising=False)
    build = Builder()
    assert list(disk_cache.arrays("t", build)["a"]) == [0, 1, 2, 3, 4]
    disk_cache.arrays("t", build)
    assert build.calls == 2


def test_a_table_is_built_once_then_read_back_as_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(disk_cache.ENV, str(tmp_path / "cache"))
    build = Builder()
    first = disk_cache.arrays("t", build)
    second = disk_cache.arrays("t", build)
    assert build.calls == 1
    for key, value in first.items():
        assert np.array_equal(second[key], value) and second[key].dtype == value.dtype
    version = disk_cache.version()
    assert len(version) == 16 and int(version, 16) >= 0
    # One file, named with the code's version (no temporary file left behind).
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [f"t-{version}.npz"]


def test_an_unreadable_file_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(disk_cache.ENV, str(tmp_path))
    (tmp_path / f"t-{disk_cache.version()}.npz").write_bytes(b"not an archive")
    build = Builder()
    assert list(disk_cache.arrays("t", build)["a"]) == [0, 1, 2, 3, 4]
    disk_cache.arrays("t", build)
    assert build.calls == 1  # the rebuilt file replaced the broken one


@pytest.mark.slow  # builds the standard tables twice (seconds of CPU)
def test_the_advisors_tables_read_from_the_cache_advise_as_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(disk_cache.ENV, str(tmp_path))
    tables.cache_clear()
    try:
        built = tables("jacks-9-6", False)
        advice = advise(["Ah", "Kh", "Qh", "Jh", "9c"], "jacks-9-6", 5)
        tables.cache_clear()
        read = tables("jacks-9-6", False)
        assert all(np.array_equal(a, b) for a, b in zip(built.hist, read.hist, strict=True))
        assert np.array_equal(built.hand_class, read.hand_class)
        assert advise(["Ah", "Kh", "Qh", "Jh", "9c"], "jacks-9-6", 5) == advice
    finally:
        tables.cache_clear()
