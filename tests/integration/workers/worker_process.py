"""A real Celery worker process (`python -m services.workers`), started and killed by tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


class WorkerProcess:
    """One worker in its own process group, so kill -9 takes its embedded beat down too."""

    def __init__(self, env: Mapping[str, str], log_path: Path) -> None:
        self._env = dict(env)
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.ready_at = 0.0
        self._ready = threading.Event()

    def start(self, timeout: float = 30.0) -> WorkerProcess:
        self._ready.clear()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.workers"],
            cwd=ROOT,
            env=self._env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        threading.Thread(target=self._pump, args=(self.process,), daemon=True).start()
        if not self._ready.wait(timeout):
            self.kill()
            raise RuntimeError(f"worker not ready after {timeout}s; log: {self.log_path}")
        return self

    def _pump(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        with self.log_path.open("ab") as log:
            for line in iter(process.stdout.readline, b""):
                log.write(line)
                log.flush()
                if b" ready." in line and not self._ready.is_set():
                    self.ready_at = time.time()
                    self._ready.set()

    def kill(self) -> None:
        """SIGKILL the whole process group: no shutdown, no acks, tasks in memory are lost."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


def worker_env(
    redis_url: str, table_target: str, auth_key: str, ledger_target: str = "", **workers: object
) -> dict[str, str]:
    """The environment of a worker serving one test platform: bots act at once (no think
    time), four task slots; `workers` sets further CROUPIER_WORKERS_<NAME> settings
    (e.g. sweep_interval=0.5)."""
    env = dict(os.environ)
    env.update(
        REDIS_URL=redis_url,
        CROUPIER_TABLE_TARGET=table_target,
        CROUPIER_AUTH_KEY=auth_key,
        CROUPIER_WORKERS_BOT_DELAY="0",
        CROUPIER_WORKERS_CONCURRENCY="4",
    )
    if ledger_target:
        env["CROUPIER_LEDGER_TARGET"] = ledger_target
    env.update({f"CROUPIER_WORKERS_{name.upper()}": str(value) for name, value in workers.items()})
    return env


@contextmanager
def running_worker(env: Mapping[str, str], log_dir: Path) -> Iterator[WorkerProcess]:
    """A started worker (its output in log_dir/worker.log), stopped on exit."""
    process = WorkerProcess(env, log_dir / "worker.log").start()
    try:
        yield process
    finally:
        process.stop()
