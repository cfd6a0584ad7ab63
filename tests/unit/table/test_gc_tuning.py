"""The table process's garbage-collector settings (services/table/__main__.py)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from services.table.__main__ import GC_YOUNG_THRESHOLD, tune_gc


@pytest.fixture
def restored_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


class Node:
    other: object = None


def test_tuning_freezes_what_is_loaded_and_collects_the_young_generation_less_often(
    restored_gc: None,
) -> None:
    gc.unfreeze()
    _, middle, oldest = gc.get_threshold()
    tune_gc()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, middle, oldest)
    assert GC_YOUNG_THRESHOLD > 700  # CPython's default


def test_cycles_made_after_tuning_are_still_collected(restored_gc: None) -> None:
    tune_gc()
    collected: list[str] = []
    a, b = Node(), Node()
    a.other, b.other = b, a
    weakref.finalize(a, collected.append, "a")
    del a, b
    gc.collect()
    assert collected == ["a"]
