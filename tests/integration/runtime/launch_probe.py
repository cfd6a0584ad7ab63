"""The platform launcher with the probe service as its only deployable (for tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from services.client.launcher import Deployable, Launcher

if __name__ == "__main__":
    probe = Deployable("probe", "tests.integration.runtime.probe_main")
    launcher = Launcher(Path(sys.argv[1]), os.environ, sys.stdout, [probe], with_worker=False)
    raise SystemExit(launcher.run())
