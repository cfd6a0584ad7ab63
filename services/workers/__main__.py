"""`python -m services.workers`: the Celery worker (`services.workers.worker`), kept running.

The worker runs as a child process, started again whenever it dies (after
`services.shared.restarts.restart_delay`) until this process is told to stop (SIGTERM, SIGINT,
SIGHUP: forwarded to the worker, which shuts down warm). Celery exits on some broker outages
(kombu's Redis transport restores its unacked messages on a connection it closed a moment
before: "Unrecoverable error: AttributeError('NoneType' object has no attribute 'hostname')");
the tasks such a worker held are in Redis' indexes, and the new worker's sweeper sends them
again. Settings are checked before the first start: a bad one stops here, with its message.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from types import FrameType

from services.shared.restarts import crashes_after, restart_delay
from services.workers.settings import WorkerSettings

WORKER_COMMAND = [sys.executable, "-m", "services.workers.worker"]


def supervise(command: list[str]) -> int:
    """Run `command` until a stop signal, starting it again each time it exits; returns the
    exit status of its last run."""
    stopping = threading.Event()
    child: subprocess.Popen[bytes] | None = None

    def forward(signum: int, _frame: FrameType | None) -> None:
        stopping.set()
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    crashes = 0
    while True:
        started = time.monotonic()
        child = subprocess.Popen(command)  # its output is ours; the same process group
        status = child.wait()
        if stopping.is_set():
            return status
        crashes = crashes_after(crashes, time.monotonic() - started)
        delay = restart_delay(crashes)
        print(
            f"workers: the Celery worker exited with status {status}; "
            f"starting it again in {delay:.0f} s",
            file=sys.stderr,
            flush=True,
        )
        if stopping.wait(delay):
            return status


def main() -> int:
    try:
        WorkerSettings.from_env()
    except ValueError as exc:
        print(f"workers: {exc}", file=sys.stderr)
        return 1
    return supervise(WORKER_COMMAND)


if __name__ == "__main__":
    raise SystemExit(main())
