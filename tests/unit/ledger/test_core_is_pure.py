"""The ledger core decides and folds without I/O: it imports only the standard library, its own
modules, the domain error classes and the shared limits (constants)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import services.ledger.core as core

ALLOWED = {"services.shared.errors", "services.shared.limits"}


def test_core_imports_no_io_libraries() -> None:
    offenders = []
    for path in Path(core.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if name not in ALLOWED and top not in sys.stdlib_module_names:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []
