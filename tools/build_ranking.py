"""Compile the ranking library's single-hand fast path (services/ranking/fast.py) and its
one-deal-at-a-time Monte Carlo (services/ranking/quick_equity.py) with mypyc.

Run by `make ranking` (and so by `make test`, `make run`, `make bench`). Both are plain,
fully typed Python; mypyc turns each into an extension module next to its source, which
Python imports instead of the .py (the same source runs interpreted where nothing was
compiled), in one shared library so that quick_equity calls fast's evaluators as C. Only
these are compiled: their functions are called once per hand or per deal in loops
(showdowns, simulations, the bots' equity, `python -m bench --only evaluator`), where the
interpreter's work per call is most of the cost; everything else in the library is batch
NumPy work or builds tables once.

A compiled module older than a source it was built from would run stale code: `stale_modules`
finds that, and the test suite refuses to start (tests/conftest.py).

Usage: python tools/build_ranking.py [--clean]
"""

from __future__ import annotations

import argparse
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "services" / "ranking"
SOURCES = (PACKAGE / "fast.py", PACKAGE / "quick_equity.py")
# What the compiled module was built against (it imports these, directly or not): a change to
# any of them makes the build stale. The rest of the library runs interpreted.
DEPENDS = tuple(
    PACKAGE / f"{name}.py"
    for name in ("fast", "quick_equity", "batch", "encoding", "tables", "patterns", "values")
)
# The shared library of the compiled module, named inside the package so it travels with it.
GROUP = "services.ranking.compiled"
BUILD = ROOT / "build" / "mypyc-ranking"
STAMP = BUILD / ".compiled"


def _suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def compiled_path(source: Path) -> Path:
    return source.with_name(source.stem + _suffix())


def _built_files() -> list[Path]:
    return sorted(PACKAGE.glob("*" + _suffix()))


def is_compiled() -> bool:
    return all(compiled_path(source).exists() for source in SOURCES)


def runs_compiled() -> bool:
    """Whether this process runs the compiled fast path (what it imported, not the disk)."""
    import services.ranking.fast as fast
    import services.ranking.quick_equity as quick_equity

    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return all((module.__file__ or "").endswith(suffixes) for module in (fast, quick_equity))


def stale_modules() -> list[str]:
    """Sources newer than the compiled build (`DEPENDS`: the compiled code was built against
    their types), or a compiled module gone missing. Empty when nothing is built."""
    present = [compiled_path(s) for s in SOURCES if compiled_path(s).exists()]
    if not present:
        return []
    built_at = min(path.stat().st_mtime for path in present)
    missing = {s for s in SOURCES if not compiled_path(s).exists()}
    changed = {s for s in DEPENDS if s.stat().st_mtime > built_at}
    return sorted(str(s.relative_to(ROOT)) for s in missing | changed)


def clean() -> None:
    for path in _built_files():
        path.unlink()
    STAMP.unlink(missing_ok=True)


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    clean()
    os.chdir(ROOT)  # mypycify derives module names from paths relative to here
    extensions = mypycify(
        [str(p.relative_to(ROOT)) for p in SOURCES], group_name=GROUP, target_dir=str(BUILD / "c")
    )
    distribution = Distribution({"name": "croupier-ranking", "ext_modules": extensions})
    command = distribution.get_command_obj("build_ext")
    command.inplace = True
    command.build_temp = str(BUILD / "temp")
    distribution.run_command("build_ext")
    for path in _built_files():  # dated now: the build matches the sources
        os.utime(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clean", action="store_true", help="remove the compiled module")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        return 0
    build()
    if not is_compiled():
        print("build finished but the compiled module is missing", file=sys.stderr)
        return 1
    print(f"compiled {len(SOURCES)} ranking modules with mypyc into {PACKAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
