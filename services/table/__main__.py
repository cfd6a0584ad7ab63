"""`python -m services.table`: serve the table orchestrator until SIGTERM/SIGINT."""

from __future__ import annotations

import gc

from services.shared.aio_server import serve_aio
from services.shared.grpc_server import serve
from services.shared.settings import RuntimeSettings, SettingsError, env_str
from services.table.ports import NoScheduler, SchedulerPort
from services.table.server import build, build_aio
from services.table.settings import TableSettings


def scheduler_from_env() -> SchedulerPort:
    """Timeouts and bot turns through Celery unless CROUPIER_TABLE_SCHEDULER=none."""
    choice = env_str("CROUPIER_TABLE_SCHEDULER", "celery")
    if choice == "none":
        return NoScheduler()
    if choice != "celery":
        raise SettingsError(f"CROUPIER_TABLE_SCHEDULER={choice!r}; use celery or none")
    from services.scheduling.scheduler import CeleryScheduler
    from services.scheduling.settings import SchedulingSettings

    try:
        return CeleryScheduler.from_settings(SchedulingSettings.from_env())
    except ValueError as exc:
        raise SettingsError(f"the Celery scheduler: {exc}") from exc


# Objects allocated (net) between two youngest-generation collections (CPython's default: 700).
GC_YOUNG_THRESHOLD = 10_000


def tune_gc() -> None:
    """Fewer, cheaper cyclic garbage collections while serving. Every command allocates
    thousands of short-lived objects (protobuf messages, engine states, gRPC call state), so
    at CPython's default the collector ran ~2 times per action and cost ~3% of the table
    process's CPU (measured with gc.callbacks under bench_table); everything loaded at
    start-up (modules, descriptors, the wiring) is frozen out of every later collection.
    Reference counting still frees acyclic garbage at once; cycles wait a little longer."""
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, oldest)


RUNTIMES = ("aio", "sync")


def runtime_from_env() -> str:
    """CROUPIER_TABLE_RUNTIME: ``aio`` (the default: grpc.aio, a stream holds no thread) or
    ``sync`` (grpc.server: each WatchTable or Play stream holds one of CROUPIER_MAX_WORKERS
    threads for its life)."""
    choice = env_str("CROUPIER_TABLE_RUNTIME", "aio")
    if choice not in RUNTIMES:
        raise SettingsError(f"CROUPIER_TABLE_RUNTIME={choice!r}; use {' or '.join(RUNTIMES)}")
    return choice


def main() -> None:
    runtime = RuntimeSettings.from_env("table")
    settings = TableSettings.from_env()
    if runtime_from_env() == "sync":
        spec = build(settings, runtime, scheduler=scheduler_from_env())
        tune_gc()
        serve(spec, runtime)
        return
    aio_spec = build_aio(settings, runtime, scheduler=scheduler_from_env())
    tune_gc()
    serve_aio(aio_spec, runtime)


if __name__ == "__main__":
    main()
