"""`python -m services.table`: serve the table orchestrator until SIGTERM/SIGINT."""

from __future__ import annotations

from services.shared.grpc_server import serve
from services.shared.settings import RuntimeSettings, SettingsError, env_str
from services.table.ports import NoScheduler, SchedulerPort
from services.table.server import build
from services.table.settings import TableSettings


def scheduler_from_env() -> SchedulerPort:
    """Timeouts and bot turns through Celery (issue 7) unless CROUPIER_TABLE_SCHEDULER=none."""
    choice = env_str("CROUPIER_TABLE_SCHEDULER", "celery")
    if choice == "none":
        return NoScheduler()
    if choice != "celery":
        raise SettingsError(f"CROUPIER_TABLE_SCHEDULER={choice!r}; use celery or none")
    from services.workers.scheduler import CeleryScheduler
    from services.workers.settings import WorkerSettings

    try:
        return CeleryScheduler.from_settings(WorkerSettings.from_env())
    except ValueError as exc:
        raise SettingsError(f"the Celery scheduler: {exc}") from exc


def main() -> None:
    runtime = RuntimeSettings.from_env("table")
    serve(build(TableSettings.from_env(), runtime, scheduler=scheduler_from_env()), runtime)


if __name__ == "__main__":
    main()
