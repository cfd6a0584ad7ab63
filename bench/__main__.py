"""`make bench` / `python -m bench [--quick] [--only NAME ...]`.

Discovers every ``bench/bench_<area>.py`` exposing ``run(quick: bool) -> list[dict]``, runs
them one after another, prints one table per module and writes
``bench/results/<module>.json`` (rows plus the command line, machine and timestamp, so every
number can be traced to how it was measured). A module that fails is reported and the others
still run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import pkgutil
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"


def discover() -> list[str]:
    """Names of the benchmark modules, e.g. ["bench_runtime", ...], sorted."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules([str(BENCH_DIR)])
        if info.name.startswith("bench_")
    )


def selected(modules: list[str], only: list[str]) -> list[str]:
    if not only:
        return modules
    wanted = {name if name.startswith("bench_") else f"bench_{name}" for name in only}
    unknown = wanted - set(modules)
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {sorted(unknown)}; have {modules}")
    return [m for m in modules if m in wanted]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def render(name: str, rows: list[dict[str, Any]], seconds: float) -> Table:
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    table = Table(title=f"{name} ({seconds:.1f} s)", title_justify="left")
    for column in columns:
        table.add_column(column, justify="left" if column in ("variant", "name") else "right")
    for row in rows:
        table.add_row(*(_cell(row.get(column, "")) for column in columns))
    return table


def write_results(name: str, rows: list[dict[str, Any]], quick: bool, seconds: float) -> Path:
    RESULTS_DIR.mkdir(exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    document = {
        "module": name,
        "quick": quick,
        "command": " ".join([Path(sys.executable).name, "-m", "bench", *sys.argv[1:]]),
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "rows": rows,
    }
    path.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this module (bench_NAME or NAME); repeatable",
    )
    args = parser.parse_args(argv)
    # Wide enough for a results table when piped to a file or CI log.
    console = Console(width=None if sys.stdout.isatty() else 240)
    failed = []
    for name in selected(discover(), args.only):
        console.rule(name)
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.{name}")
            rows = module.run(args.quick)
        except Exception:
            console.print(traceback.format_exc(), style="red", markup=False)
            failed.append(name)
            continue
        seconds = time.perf_counter() - started
        console.print(render(name, rows, seconds))
        path = write_results(name, rows, args.quick, seconds)
        console.print(f"wrote {path.relative_to(BENCH_DIR.parent)}")
    if failed:
        console.print(f"failed: {', '.join(failed)}", style="red")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
