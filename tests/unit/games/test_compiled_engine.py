"""The engine runs compiled (mypyc, `make engine`), and the compiled build plays exactly as
its source does: the same events, views, redactions and states over seeded random play."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
import time
from pathlib import Path

import services.games.poker.reducer
from tests.unit.games.poker.engine_digest import digest
from tools import build_engine

ROOT = Path(__file__).resolve().parents[3]
COMPILED = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def test_the_suite_runs_the_compiled_engine() -> None:
    assert build_engine.is_compiled(), "the engine is not compiled: run `make engine`"
    assert build_engine.runs_compiled()
    assert services.games.poker.reducer.__file__.endswith(COMPILED)


def _interpreted(code: str) -> str:
    """What `code` prints in a second process that runs the engine from its source."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            f"from tools.build_engine import use_interpreted\nuse_interpreted()\n{code}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_compiled_and_interpreted_engines_play_identically() -> None:
    interpreted = _interpreted(
        "from tests.unit.games.poker.engine_digest import digest\nprint(digest())"
    ).strip()
    assert digest() == interpreted


def test_the_source_only_import_really_bypasses_compiled_modules() -> None:
    # Without this the comparison above could compare the compiled build with itself.
    probe = _interpreted(
        "import services.games, services.games.poker.reducer as r, services.games.cards as c\n"
        "import services.games.poker as p\n"
        "print(r.__file__, c.__file__, p.__file__, services.games.__file__)"
    ).split()
    assert probe and all(path.endswith(".py") for path in probe)


def _package(root: Path) -> Path:
    package = root / "services" / "games"
    (package / "poker").mkdir(parents=True)
    for name in ("rules.py", "reducer.py", "definitions.py"):  # definitions.py stays interpreted
        (package / "poker" / name).write_text("")
    return package


def _age(path: Path, seconds_ago: float) -> None:
    when = time.time() - seconds_ago
    os.utime(path, (when, when))


def test_nothing_is_stale_where_nothing_was_compiled(tmp_path: Path) -> None:
    assert build_engine.stale_modules(_package(tmp_path)) == []


def test_a_source_changed_after_the_build_is_stale_interpreted_ones_included(
    tmp_path: Path,
) -> None:
    package = _package(tmp_path)
    for source in build_engine.sources(package):
        built = build_engine.compiled_path(source)
        built.write_text("")
        _age(source, 60)
        _age(built, 30)
    _age(package / "poker" / "definitions.py", 60)
    assert build_engine.stale_modules(package) == []
    _age(package / "poker" / "reducer.py", 0)
    _age(package / "poker" / "definitions.py", 0)
    assert build_engine.stale_modules(package) == [
        "services/games/poker/definitions.py",
        "services/games/poker/reducer.py",
    ]


def test_a_compiled_module_gone_missing_is_stale(tmp_path: Path) -> None:
    package = _package(tmp_path)
    for source in build_engine.sources(package):
        build_engine.compiled_path(source).write_text("")
    build_engine.compiled_path(package / "poker" / "rules.py").unlink()
    assert build_engine.stale_modules(package) == ["services/games/poker/rules.py"]
