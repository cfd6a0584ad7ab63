"""The single-hand fast path runs compiled wherever `make ranking` built it."""

from tools import build_ranking


def test_a_built_fast_path_is_the_one_imported() -> None:
    # Every benchmark and simulation then measures the compiled code, never a silent fallback.
    assert build_ranking.runs_compiled() == build_ranking.is_compiled()


def test_nothing_compiled_is_older_than_its_source() -> None:
    assert build_ranking.stale_modules() == []
