"""The Celery worker with the sweeper's beat embedded, as `python -m services.workers` runs
it (under its supervisor, `services.workers.__main__`).

Environment: see `services.workers.settings`, plus `CROUPIER_WORKERS_CONCURRENCY` (threads,
default 8) and `CROUPIER_WORKERS_BEAT` (1 = embed the beat that schedules the sweeper, the
default: every worker may; only the one holding the sweeper lease sends, sweeper_lease.py).
"""

from __future__ import annotations

import os
import sys
import tempfile

from services.workers import long_lived, tasks
from services.workers.celery_app import app, configure, quiet_sweep_logs
from services.workers.settings import WorkerSettings
from services.workers.sweeper_lease import LeasedScheduler


def worker_argv(concurrency: int, beat: bool, schedule_dir: str) -> list[str]:
    argv = [
        "worker",
        "--loglevel=INFO",
        # Tasks wait on gRPC and Redis, not the CPU: threads, in one process.
        "--pool=threads",
        f"--concurrency={concurrency}",
        "--without-gossip",
        "--without-mingle",
        f"--hostname=workers-{os.getpid()}@%h",
    ]
    if beat:
        argv += [
            "--beat",
            f"--schedule={os.path.join(schedule_dir, 'beat-schedule')}",
            f"--scheduler={LeasedScheduler.__module__}:{LeasedScheduler.__qualname__}",
        ]
    return argv


def main() -> int:
    try:
        settings = WorkerSettings.from_env()
    except ValueError as exc:
        print(f"workers: {exc}", file=sys.stderr)
        return 1
    configure(app, settings)
    quiet_sweep_logs()
    assert tasks.FIRE_TIMEOUT  # the task module registers the tasks on `app`
    assert long_lived.__name__  # (its signal handlers start the sweeper and the bot host)
    concurrency = int(os.environ.get("CROUPIER_WORKERS_CONCURRENCY", "8"))
    beat = os.environ.get("CROUPIER_WORKERS_BEAT", "1") != "0"
    with tempfile.TemporaryDirectory(prefix="croupier-beat-") as schedule_dir:
        app.worker_main(worker_argv(concurrency, beat, schedule_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
