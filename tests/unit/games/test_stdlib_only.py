"""services/games is the pure core: it may import only the standard library and itself (mypyc
compiles it from plain typed source, tools/build_engine.py: no compiler hints are imported)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

GAMES = Path(__file__).resolve().parents[3] / "services" / "games"
FORBIDDEN_STDLIB = {"random", "time", "datetime", "socket", "os", "subprocess", "threading"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_games_imports_only_the_standard_library_and_itself() -> None:
    offenders = []
    for path in sorted(GAMES.rglob("*.py")):
        for name in imported_modules(path):
            top = name.split(".")[0]
            if name.startswith("services.games") or name == "__future__":
                continue
            if top not in sys.stdlib_module_names or top in FORBIDDEN_STDLIB:
                offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_the_check_sees_every_module() -> None:
    assert len(list(GAMES.rglob("*.py"))) >= 10
