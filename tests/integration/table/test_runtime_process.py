"""`python -m services.table` on each runtime: grpc.aio unless CROUPIER_TABLE_RUNTIME says
sync; either serves a hand, and a SIGTERM stops it cleanly (exit 0, "stopped" logged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.shared.settings import SettingsError
from services.table.__main__ import runtime_from_env
from tests.integration.table.conftest import create_table, seat, wait_for_turn
from tests.integration.table.process_stack import stack


@pytest.mark.parametrize("runtime", ["", "aio", "sync"])
def test_the_table_process_serves_a_hand_and_stops_cleanly_on_sigterm(
    redis_url: str, key_prefix: str, tmp_path: Path, runtime: str
) -> None:
    env = {"CROUPIER_TABLE_RUNTIME": runtime} if runtime else {}
    with stack(redis_url, key_prefix, tmp_path, **env) as running:
        table_id = create_table(running.platform, seats=2)
        alice = seat(running.platform, table_id, "alice", 0, 200)
        seat(running.platform, table_id, "bob", 1, 200)
        assert wait_for_turn(alice, table_id).hand_in_progress
        running.table.stop()
        process = running.table.process
        assert process is not None and process.returncode == 0, running.table.log()
        log = running.table.log()
        assert "stopped" in log
        assert ("grpc.aio" in log) == (runtime != "sync"), log


def test_an_unknown_runtime_is_refused_naming_the_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CROUPIER_TABLE_RUNTIME", "trio")
    with pytest.raises(SettingsError, match="use aio or sync"):
        runtime_from_env()
