"""A real Celery worker process (`python -m services.workers`), started and killed by tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


class WorkerProcess:
    """One worker in its own process group, so kill -9 takes its embedded beat down too."""

    def __init__(self, env: Mapping[str, str], log_path: Path) -> None:
        self._env = dict(env)
        self._log_path = log_path
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
            raise RuntimeError(f"worker not ready after {timeout}s; log: {self._log_path}")
        return self

    def _pump(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        with self._log_path.open("ab") as log:
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
