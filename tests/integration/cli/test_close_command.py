"""`croupier table close` through typer's runner against the real services: the creator
closes, every stack goes home, a late join is refused in one line; anyone else is refused."""

from __future__ import annotations

import json

import pytest

from tests.integration.cli.test_cli_commands import _env, croupier
from tests.integration.table.conftest import Platform

pytestmark = pytest.mark.integration


def test_the_creator_closes_a_table_and_every_stack_goes_home(platform: Platform) -> None:
    env = _env(platform)
    created = croupier(env, "--as", "alice", "table", "create", "--seats", "3", "--json")
    table = json.loads(created.stdout)["table_id"]
    platform.fund("alice", 1000)
    assert croupier(env, "--as", "alice", "join", table, "--buy-in", "200").exit_code == 0
    assert platform.balance("player:alice:CHIP") == 800

    denied = croupier(env, "--as", "bob", "table", "close", table)
    assert denied.exit_code == 4, denied.output
    assert len(denied.output.strip().splitlines()) == 1 and "alice" in denied.output

    closed = croupier(env, "--as", "alice", "table", "close", table, "--wait", "--json")
    assert closed.exit_code == 0, closed.output
    assert json.loads(closed.stdout)["status"] == "TABLE_STATUS_CLOSED"
    assert platform.balance("player:alice:CHIP") == 1000
    shown = croupier(env, "--as", "alice", "table", "show", table)
    assert "closed" in shown.output
    listed = croupier(env, "--as", "alice", "table", "list")
    assert "closed" in listed.output

    again = croupier(env, "--as", "alice", "table", "close", table)
    assert again.exit_code == 0 and "is closed" in again.output, again.output
    platform.fund("bob", 500)
    late = croupier(env, "--as", "bob", "join", table, "--buy-in", "200")
    assert late.exit_code == 1, late.output
    assert "closed" in late.output and len(late.output.strip().splitlines()) == 1
    assert platform.balance("player:bob:CHIP") == 500


def test_closing_no_such_table_is_one_line_and_exit_1(platform: Platform) -> None:
    result = croupier(_env(platform), "--as", "alice", "table", "close", "nowhere")
    assert result.exit_code == 1, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_close_help_shows_an_example() -> None:
    result = croupier({}, "table", "close", "--help")
    assert result.exit_code == 0 and "croupier --as alice table close" in result.output
