"""Compile the pure rules engine (services/games) to C with mypyc, in place.

Run by `make engine` (and so by `make test`, `make run`, `make bench`). The engine is plain,
fully typed Python (mypy --strict); mypyc turns each module into an extension module next to
its source, which Python imports instead of the .py. The same source runs interpreted
wherever nothing was compiled, and `tests/unit/games/test_compiled_engine.py` checks that both
produce the same events for the same seeded hands.

Why compiled: the engine's CPU per hand bounds both the pure-engine benchmark and the table
service's work per command (`make bench`, bench/bench_engine.py reports both builds side by
side).

What is compiled: the shared game core (`services/games/*.py`: cards, errors, the ranking
port, time banks) and the poker engine (`services/games/poker/*.py`), into one shared library
so that calls between their modules stay native C calls. Other game packages run interpreted
until they are listed in COMPILED_PACKAGES.

Modules left interpreted, and why:
- every package's __init__.py: it only re-exports, and the shared library of the compiled
  modules lives inside the package, so importing it must not need the package's own compiled
  module first;
- contract.py: the game contract, read by every game package and the shell; nothing in it
  runs per event;
- state_codec.py: encodes states for snapshots by walking any registered class (dynamic
  lookups mypyc would not speed up), once every many events, off the command's path;
- poker/definitions.py, ranking.py: the table codec reads their dataclasses' field
  annotations to decode stored events (services/table/codec.py), and compiled classes expose
  `type` in place of `X | None` there.

A compiled module older than its source would run the old code: `stale_modules` finds those,
and the test suite refuses to start while there are any (tests/conftest.py). A generated
record module (tools/gen_records.py) that differs from its declaration would compile the old
records: the build refuses it, and so does the test suite.

Usage: python tools/build_engine.py [--clean]
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

if __package__ in (None, ""):  # run as a script (`python tools/build_engine.py`)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools import gen_records

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "services" / "games"
# The packages compiled, relative to PACKAGE ("" is PACKAGE itself).
COMPILED_PACKAGES = ("", "poker")
# Modules of those packages that stay interpreted (paths relative to PACKAGE), besides every
# package's __init__.py.
INTERPRETED = frozenset({"contract.py", "ranking.py", "state_codec.py", "poker/definitions.py"})
# The shared library holding every compiled module (one library: calls between modules stay
# native C calls). Named inside the package so that it travels with it.
GROUP = "services.games.compiled"
BUILD = ROOT / "build" / "mypyc"
# The Makefile's record of the last build: removed with the modules, so `make engine` builds
# again after a `--clean`.
STAMP = BUILD / ".compiled"


def _modules(package: Path) -> list[Path]:
    """Every source module of the compiled packages (interpreted ones too)."""
    return sorted(path for sub in COMPILED_PACKAGES for path in (package / sub).glob("*.py"))


def sources(package: Path = PACKAGE) -> list[Path]:
    """The engine modules that are compiled, in a stable order."""
    return [
        path
        for path in _modules(package)
        if path.name != "__init__.py" and path.relative_to(package).as_posix() not in INTERPRETED
    ]


def _extension_suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def compiled_path(source: Path) -> Path:
    return source.with_name(source.stem + _extension_suffix())


def _built_files() -> list[Path]:
    suffix = _extension_suffix()
    return sorted(path for sub in COMPILED_PACKAGES for path in (PACKAGE / sub).glob("*" + suffix))


def is_compiled() -> bool:
    """Whether every compiled module is present on disk."""
    return all(compiled_path(source).exists() for source in sources())


def runs_compiled() -> bool:
    """Whether this process runs the compiled engine: what it imported, not what is on disk."""
    import services.games.poker.rules as rules

    return (rules.__file__ or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def stale_modules(package: Path = PACKAGE) -> list[str]:
    """Sources the compiled build does not match: compiled once but now missing their module,
    or any engine source (the interpreted ones too: the compiled code was built against their
    types) changed since the build. Empty when nothing is compiled: that engine runs from
    source."""
    modules = {source: compiled_path(source) for source in sources(package)}
    present = [path for path in modules.values() if path.exists()]
    if not present:
        return []
    built_at = min(path.stat().st_mtime for path in present)
    missing = {source for source, path in modules.items() if not path.exists()}
    changed = {source for source in _modules(package) if source.stat().st_mtime > built_at}
    return sorted(str(source.relative_to(package.parent.parent)) for source in missing | changed)


def clean() -> None:
    for path in _built_files():
        path.unlink()
    STAMP.unlink(missing_ok=True)


class StaleRecords(Exception):
    """A generated record module differs from its declaration: compiling it would build the
    old records."""


def build() -> None:
    behind = gen_records.stale()
    if behind:
        raise StaleRecords(
            f"refusing to compile stale generated record modules ({', '.join(behind)}): run "
            "`make records` after editing their schema/ declarations"
        )
    # Imported here: only building needs mypyc and setuptools (dev dependencies).
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    clean()  # a module moved to INTERPRETED must not leave an old build behind
    os.chdir(ROOT)  # mypycify derives module names from paths relative to here
    extensions = mypycify(
        [str(p.relative_to(ROOT)) for p in sources()],
        group_name=GROUP,
        target_dir=str(BUILD / "c"),
    )
    distribution = Distribution({"name": "croupier-engine", "ext_modules": extensions})
    command = distribution.get_command_obj("build_ext")
    command.inplace = True
    command.build_temp = str(BUILD / "temp")
    command.parallel = os.cpu_count() or 1
    distribution.run_command("build_ext")
    # build_ext copies an up-to-date library with its old times (a change to comments only
    # regenerates the same C); the build now matches the sources, so date it now.
    for path in _built_files():
        os.utime(path)


class _SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Imports services.games from its .py files even where compiled modules exist."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if parts[:2] != ["services", "games"]:
            return None
        location = PACKAGE.joinpath(*parts[2:])
        if (location / "__init__.py").exists():
            return importlib.util.spec_from_file_location(
                fullname, location / "__init__.py", submodule_search_locations=[str(location)]
            )
        source = location.with_suffix(".py")
        return importlib.util.spec_from_file_location(fullname, source) if source.exists() else None


def use_interpreted() -> None:
    """Make this process run the engine from source (call before anything imports it): the
    reference the compiled build is compared against."""
    if any(name == "services.games" or name.startswith("services.games.") for name in sys.modules):
        raise RuntimeError("services.games is already imported; call use_interpreted() first")
    sys.meta_path.insert(0, _SourceOnlyFinder())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        return 0
    try:
        build()
    except StaleRecords as error:
        print(error, file=sys.stderr)
        return 1
    if not is_compiled():
        print("build finished but some modules are missing", file=sys.stderr)
        return 1
    print(f"compiled {len(sources())} engine modules with mypyc into {PACKAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
