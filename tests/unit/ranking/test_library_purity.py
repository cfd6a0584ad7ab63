"""The ranking library is a pure core: standard library, NumPy and the game core only."""

import ast
import sys
from pathlib import Path

import services.ranking as ranking

ALLOWED_PREFIXES = ("services.ranking", "services.games", "numpy")
FORBIDDEN_CALLS = {"open", "print", "input"}


def _modules() -> list[Path]:
    return sorted(Path(ranking.__file__).parent.glob("*.py"))


def test_ranking_imports_only_stdlib_numpy_and_the_game_core() -> None:
    for path in _modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                ok = top in sys.stdlib_module_names or name.startswith(ALLOWED_PREFIXES)
                assert ok, f"{path.name} imports {name}"


def test_ranking_does_no_io() -> None:
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}"
