"""Celery-worker bots play every poker variant through the platform as `make run` starts it.

`croupier run` (private Redis, every service, one Celery worker; bots think 0 ms) and, for
each variant, `croupier simulate --full-stack`: the table's requested bots are seated and
played by the worker through the public TableService API. The command fails (exit 1) when
chips are not conserved against the ledger or any decision had to be timed out (a bot that
did not act: a refused or failed turn). `make test` plays a few hands per variant;
`make soak-workers` sets CROUPIER_WORKER_SOAK_HANDS to a thousand.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from services.bots.simulation.presets import PRESETS
from services.client.launcher import worker_command
from tests.e2e.conftest import Running
from tests.fixtures.launcher_process import croupier_command

pytestmark = pytest.mark.e2e

HANDS_ENV = "CROUPIER_WORKER_SOAK_HANDS"
DEFAULT_HANDS = 8  # per variant in `make test`


def test_worker_bots_play_every_variant_through_croupier_run(croupier_run: Running) -> None:
    if worker_command() is None:
        pytest.fail("no Celery worker command: the platform cannot play bots")
    hands = int(os.environ.get(HANDS_ENV, "").strip() or DEFAULT_HANDS)
    env = croupier_run.addresses
    command = croupier_command()
    client_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")},
        "CROUPIER_TABLE_TARGET": env["CROUPIER_TABLE_ADDR"],
        "CROUPIER_LEDGER_TARGET": env["CROUPIER_LEDGER_ADDR"],
    }
    for game in PRESETS:
        # Three seats: every policy plays; the key comes from `croupier run`'s .run/.
        run = subprocess.run(
            [
                *command,
                "simulate",
                "--full-stack",
                "--game",
                game,
                "--hands",
                str(hands),
                "--seats",
                "3",
                "--bots",
                "equity,tight,random",
                "--seed",
                "7",
            ],
            cwd=croupier_run.cwd,
            env=client_env,
            capture_output=True,
            text=True,
            timeout=60 + 5 * hands,
        )
        assert run.returncode == 0, f"{game}: {run.stdout[-2000:]}{run.stderr[-2000:]}"
        assert "chips conserved: yes" in run.stdout, run.stdout[-2000:]
        assert "timed out" not in run.stdout, run.stdout[-2000:]
