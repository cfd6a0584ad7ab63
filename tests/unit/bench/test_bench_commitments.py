"""bench_commitments' peers compute the same things, so its side-by-side times compare like
with like: the bench's copy of the table's card proof is the table's, over the library now
and over the library as it was at the bench's BEFORE commit (loaded from git)."""

from __future__ import annotations

import importlib

from bench import bench_commitments as bench
from services.shuffles import positions
from services.table import card_proofs


def test_every_peer_answers_alike() -> None:
    reveal, info, seen = bench.closed_hand()
    now = {
        name: importlib.import_module(f"services.shuffles.{name}") for name in bench.MODULES.split()
    }
    before = bench.load_before()
    assert before is not None, "the bench loads the library at BEFORE from this checkout's git"
    for viewer in seen:
        made = card_proofs.card_proof(reveal, viewer)
        assert made and bench.card_proof_with(now, reveal, viewer) == made
        assert bench.card_proof_with(before, reveal, viewer) == made
        assert bench.check_proof_with(now, made) == bench.check_proof_with(before, made) > 2
    root = info.positions_root
    for library in (before["positions"], positions):
        assert library.seeded_segment(bench.SEED, bench.SHUFFLE_ID, 0, bench.DECK).root == root
    checked = bench.verify_with(now, info, root)
    assert checked == bench.verify_with(before, info, root) == 20  # 12 hole, 3 burns, 5 board


def test_interleaved_times_every_peer_in_every_round() -> None:
    calls: list[str] = []
    timed = bench.interleaved(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, rounds=3, per_round=2
    )
    assert set(timed) == {"a", "b"}
    assert calls == ["a", "b"] + ["a", "a", "b", "b"] * 3
    assert all(median >= low >= 0 for median, low in timed.values())
