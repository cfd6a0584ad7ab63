"""The advisor's tables on disk: built once per machine and code version, then read back.

Building a pay table's tables takes seconds of CPU (1.7 s standard, 4.9 s more with the
Split Card feature, on a quiet machine; several times that on a busy one), which a server's
first hint would otherwise wait for. With a cache directory (`CROUPIER_VIDEOPOKER_CACHE`, off
when unset) each table is written once as a NumPy archive and read back on the next start.
Only arrays are stored (`allow_pickle=False`: reading the cache runs no code), each file is
written under a temporary name and renamed into place (a reader never sees half a file), and
the file name carries a digest of the modules the tables are computed by, so a changed rule
or pay table never reads an old table. A file that cannot be read is built again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

ENV = "CROUPIER_VIDEOPOKER_CACHE"
Arrays = Mapping[str, npt.NDArray[np.generic]]

# Every module whose code decides a table's contents.
_SOURCES = (
    "services/games/cards.py",
    "services/games/videopoker/hands.py",
    "services/games/videopoker/paytables.py",
    "services/games/videopoker/split.py",
    "services/videopoker_analysis/classes.py",
    "services/videopoker_analysis/combos.py",
    "services/videopoker_analysis/split_tables.py",
    "services/videopoker_analysis/subsets.py",
    "services/videopoker_analysis/tables.py",
)
_ROOT = Path(__file__).resolve().parents[2]


@cache
def version() -> str:
    """A digest of the code the tables come from (16 hex digits)."""
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update(name.encode() + b"\0" + (_ROOT / name).read_bytes())
    return digest.hexdigest()[:16]


def directory() -> Path | None:
    value = os.environ.get(ENV, "")
    return Path(value) if value else None


def arrays(name: str, build: Callable[[], Arrays]) -> Arrays:
    """The arrays `build` makes, from the cache when it holds them for this code version."""
    where = directory()
    if where is None:
        return build()
    path = where / f"{name}-{version()}.npz"
    try:
        with np.load(path, allow_pickle=False) as stored:
            return {key: stored[key] for key in stored.files}
    except (OSError, ValueError, KeyError):
        pass  # absent, or unreadable: build it (again)
    built = build()
    try:
        where.mkdir(parents=True, exist_ok=True)
        partial = where / f".{name}-{version()}.{os.getpid()}.npz"
        np.savez(partial, **built)  # type: ignore[arg-type]
        os.replace(partial, path)
    except OSError:
        pass  # a cache that cannot be written only costs the next start the build
    return built
