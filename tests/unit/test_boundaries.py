"""The boundaries of the tree, checked on every import statement in `services/` (AST, so an
import inside a function or under TYPE_CHECKING counts as much as one at the top):

1. every package under services/ is a deployable, a library or the command-line tool, named
   here (a new package is classified on purpose, not by accident);
2. deployables never import each other's packages (they talk over gRPC, or through the
   scheduling library's queue);
3. libraries import no deployable and not the command-line tool;
4. the command-line tool (`croupier`) imports a deployable only through that deployable's own
   command-line modules (`services/<deployable>/*_cli.py`);
5. no two packages import each other, directly or round a longer cycle;
6. the pure cores (every game, the dealer's derivation, the ledger's core) reach no gRPC,
   protobuf, generated API, Redis or Celery module, however indirectly.

README.md and docs/architecture.md state the same rules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "services"

DEPLOYABLES = frozenset({"dealer", "evaluator", "ledger", "table", "workers"})
LIBRARIES = frozenset(
    {"games", "shared", "ranking", "bots", "scheduling", "shuffles", "videopoker_analysis", "sdk"}
)
TOOL = "client"
# The pure cores and what they must never reach.
PURE_CORES = ("services.games", "services.shuffles.derivation", "services.ledger.core")
IMPURE = ("grpc", "google.protobuf", "croupier", "redis", "celery")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module under services/, by dotted name."""
    return {_module_name(p): p for p in SERVICES.rglob("*.py")}


@cache
def imports_of(module: str) -> frozenset[str]:
    """Every module `module` names in an import statement, anywhere in its source."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # `from services.x import y` may name the module services.x.y
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules())
    return frozenset(found)


def _package(module: str) -> str | None:
    """The top-level package under services/ that `module` belongs to (None: not ours)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "services" else None


def _edges() -> Iterator[tuple[str, str, str]]:
    """(importing module, its package, imported module) for every import of another package."""
    for module in modules():
        own = _package(module)
        for imported in imports_of(module):
            other = _package(imported)
            if other is not None and own is not None and other != own:
                yield module, own, imported


def test_every_package_is_a_deployable_a_library_or_the_tool() -> None:
    packages = {p.name for p in SERVICES.iterdir() if (p / "__init__.py").exists()}
    assert packages == DEPLOYABLES | LIBRARIES | {TOOL}
    for name in DEPLOYABLES | {TOOL}:
        assert (SERVICES / name / "__main__.py").exists(), f"{name} runs as its own process"


def test_deployables_never_import_each_other() -> None:
    crossings = [
        f"{module} imports {imported}"
        for module, own, imported in _edges()
        if own in DEPLOYABLES and _package(imported) in DEPLOYABLES | {TOOL}
    ]
    assert crossings == []


def test_libraries_import_no_deployable_and_not_the_tool() -> None:
    crossings = [
        f"{module} imports {imported}"
        for module, own, imported in _edges()
        if own in LIBRARIES and _package(imported) in DEPLOYABLES | {TOOL}
    ]
    assert crossings == []


def test_the_command_line_tool_mounts_only_a_deployable_s_command_line_modules() -> None:
    crossings = [
        f"{module} imports {imported}"
        for module, own, imported in _edges()
        if own == TOOL
        and _package(imported) in DEPLOYABLES
        and not imported.rpartition(".")[2].endswith("_cli")
    ]
    assert crossings == []


def test_no_two_packages_import_each_other_even_round_a_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for _, own, imported in _edges():
        other = _package(imported)
        assert other is not None
        graph.setdefault(own, set()).add(other)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    cycles = sorted(p for p in graph if reaches(p, p, {p}))
    assert cycles == []


def _closure(root: str) -> dict[str, str]:
    """Every module `root` reaches through imports, mapped to the module that imported it."""
    reached: dict[str, str] = {}
    todo = [m for m in modules() if m == root or m.startswith(root + ".")]
    reached.update((m, m) for m in todo)
    while todo:
        module = todo.pop()
        for imported in imports_of(module):
            if imported not in reached:
                reached[imported] = module
                if imported in modules():
                    todo.append(imported)
    return reached


@pytest.mark.parametrize("core", PURE_CORES)
def test_a_pure_core_reaches_no_grpc_protobuf_redis_or_celery(core: str) -> None:
    reached = _closure(core)
    impure = [
        f"{name} (imported by {by})"
        for name, by in sorted(reached.items())
        if any(name == bad or name.startswith(bad + ".") for bad in IMPURE)
    ]
    assert impure == []


def test_the_checks_see_an_import_wherever_it_is_written() -> None:
    # The table's entry point imports the scheduling library inside a function: still seen.
    assert "services.scheduling.scheduler" in imports_of("services.table.__main__")
    assert _package("services.table.__main__") == "table"
    assert "grpc" in _closure("services.table")
