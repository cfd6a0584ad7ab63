"""`croupier run` (what `make run` starts): every built service answers health, each child
holds only its own secrets, and a token from `croupier token` is accepted; Ctrl-C stops all
of them and the private Redis, leaving no process behind (the package's platform checks
that as it stops: tests/e2e/conftest.py)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from services.client.launcher import GRPC_DEPLOYABLES, worker_command
from services.shared.channels import connect
from services.shared.healthcheck import is_serving
from tests.e2e.conftest import Running
from tests.fixtures.launcher_process import ROOT, croupier_command

pytestmark = pytest.mark.e2e


def _built_services() -> list[str]:
    return [n for n in GRPC_DEPLOYABLES if (ROOT / "services" / n / "__main__.py").exists()]


def test_croupier_run_serves_every_built_service_each_child_with_only_its_own_secrets(
    croupier_run: Running,
) -> None:
    """(Ctrl-C stopping every process, the private Redis included, is checked when the
    package's platform stops: tests/e2e/conftest.py.)"""
    addresses = {
        name: croupier_run.addresses[f"CROUPIER_{name.upper()}_ADDR"] for name in GRPC_DEPLOYABLES
    }
    pids = croupier_run.launcher.pids()
    expected = {*_built_services(), "redis"}
    if worker_command() is not None:
        expected.add("worker")
    assert set(pids) == expected
    for name in _built_services():
        assert is_serving(addresses[name]), f"{name} is not SERVING"
    _each_child_holds_only_its_own_secrets(pids)
    if "ledger" in _built_services():
        _a_token_from_croupier_token_is_accepted(
            croupier_command(), croupier_run.cwd, addresses["ledger"]
        )
    if "ledger" in _built_services():
        # The house's development bankroll, so a video poker win is paid from the start.
        assert "house:    house:rake:CHIP holds" in croupier_run.launcher.output()
    # Run from an empty directory with the default (relative) state dir, like `make run`.
    assert (croupier_run.cwd / ".run" / "keys" / "public-keys").exists()


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def _each_child_holds_only_its_own_secrets(pids: dict[str, int]) -> None:
    """Only the dealer sees the dealer key; only the table and the worker a signing key, each
    its own; nobody the operator's key or a shared key."""
    signing = {"table": "table.key", "worker": "workers.key"}
    for name, pid in pids.items():
        if name == "redis":
            continue
        env = _environ(pid)
        assert "CROUPIER_AUTH_KEY" not in env, name
        assert env["CROUPIER_AUTH_PUBLIC_KEYS_FILE"].endswith("public-keys"), name
        assert ("CROUPIER_DEALER_KEY_FILE" in env) == (name == "dealer"), name
        assert "CROUPIER_DEALER_KEY" not in env, name
        key = env.get("CROUPIER_AUTH_SIGNING_KEY_FILE")
        if name in signing:
            assert key is not None and Path(key).name == signing[name], name
        else:
            assert key is None, f"{name} holds a signing key it never uses"


def _a_token_from_croupier_token_is_accepted(
    command: Sequence[str], cwd: Path, ledger_address: str
) -> None:
    """`croupier token` signs with the key `croupier run` generated, and services accept it."""
    from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc

    minted = subprocess.run(
        [*command, "token", "--subject", "alice", "--role", "player"],
        cwd=cwd,
        env={k: v for k, v in os.environ.items() if k != "CROUPIER_AUTH_KEY"},
        capture_output=True,
        text=True,
        check=True,
    )
    token = minted.stdout.strip().splitlines()[-1]
    with connect(ledger_address, token) as channel:
        reply = ledger_pb2_grpc.LedgerServiceStub(channel).OpenAccount(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name="alice", currency="CHIP"
            ),
            timeout=10,
        )
    assert reply.account.id == "player:alice:CHIP"
