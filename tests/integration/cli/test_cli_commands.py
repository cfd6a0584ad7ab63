"""The `croupier` commands through typer's runner against the real services (table, dealer,
ledger on loopback over the session's Redis): every seat command, views, watch, history, and
the error paths a new user hits — each one line and an exit code, never a traceback."""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping

import pytest
from typer.testing import CliRunner, Result

from services.client.cli import app
from services.sdk import player_account
from tests.integration.table.conftest import KEY, Platform

pytestmark = pytest.mark.integration


def _env(platform: Platform) -> dict[str, str]:
    return {
        "CROUPIER_TABLE_TARGET": f"127.0.0.1:{platform.port}",
        "CROUPIER_LEDGER_TARGET": f"127.0.0.1:{platform.ledger_port}",
        "CROUPIER_AUTH_KEY": KEY,
        "CROUPIER_PLAYER": "",
        "CROUPIER_TOKEN": "",
    }


def croupier(env: Mapping[str, str], *args: str) -> Result:
    result = CliRunner().invoke(app, list(args), env=dict(env))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_players_play_a_hand_with_the_seat_commands(platform: Platform) -> None:
    env = _env(platform)
    created = croupier(env, "--as", "alice", "table", "create", "--seats", "2", "--json")
    assert created.exit_code == 0, created.output
    table = json.loads(created.stdout)["table_id"]
    listed = croupier(env, "--as", "alice", "table", "list", "--json")
    assert table in {t["table_id"] for t in json.loads(listed.stdout)}
    for name in ("alice", "bob"):
        platform.fund(name, 1000)
        joined = croupier(env, "--as", name, "join", table, "--buy-in", "200", "--json")
        assert joined.exit_code == 0, joined.output
    # Whoever is to act calls or checks until the hand is over; `view` says whose turn it is.
    for _ in range(40):
        view = json.loads(croupier(env, "--as", "alice", "view", table, "--json").stdout)
        if int(view.get("hand_number", 0)) >= 2 or not view.get("acting_seats"):
            if int(view.get("hand_number", 0)) >= 2:
                break
            continue
        seat = view["acting_seats"][0]
        player = next(s["player_id"] for s in view["seats"] if s.get("seat", 0) == seat)
        mine = json.loads(croupier(env, "--as", player, "view", table, "--json").stdout)
        legal = {a["action"] for a in mine["poker"].get("legal_actions", [])}
        move = next(m for m in ("check", "call", "show", "fold") if f"ACTION_{m.upper()}" in legal)
        acted = croupier(env, "--as", player, "act", table, move)
        assert acted.exit_code in (0, 1), acted.output
    history = croupier(env, "--as", "alice", "history", table, "1")
    assert history.exit_code == 0, history.output
    assert "hand" in history.output.lower()
    as_json = croupier(env, "--as", "alice", "history", table, "1", "--format", "json")
    assert json.loads(as_json.stdout)["hand_number"] == "1"
    phh = croupier(env, "--as", "alice", "history", table, "1", "--format", "phh")
    assert "variant" in phh.output
    watched = croupier(env, "--as", "alice", "watch", table, "--from-version", "1", "--events", "5")
    assert watched.exit_code == 0 and len(watched.output.splitlines()) == 5, watched.output
    out = croupier(env, "--as", "bob", "sit-out", table)
    assert out.exit_code == 0, out.output
    back = croupier(env, "--as", "bob", "sit-in", table)
    assert back.exit_code == 0, back.output
    left = croupier(env, "--as", "alice", "leave", table, "--json")
    assert left.exit_code == 0, left.output
    balance = croupier(env, "--as", "alice", "account", "balance", "--json")
    assert json.loads(balance.stdout)["account_id"] == player_account("alice")


def test_a_wrong_move_says_what_is_legal_and_exits_1(platform: Platform) -> None:
    env = _env(platform)
    table = json.loads(
        croupier(env, "--as", "alice", "table", "create", "--seats", "2", "--json").stdout
    )["table_id"]
    moved = croupier(env, "--as", "alice", "act", table, "check")
    assert moved.exit_code == 1
    assert moved.output.count("\n") == 1 and "croupier:" in moved.output
    unknown = croupier(env, "--as", "alice", "act", table, "dance")
    assert unknown.exit_code == 2 and "no action 'dance'" in unknown.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("table", "show", "no-such-table"), "no-such-table"),
        (("join", "no-such-table"), "no-such-table"),
        (("history", "no-such-table", "1"), "no-such-table"),
    ],
)
def test_no_such_table_is_one_line_and_exit_1(
    platform: Platform,
    args: tuple[str, ...],
    expected: str,
) -> None:
    result = croupier(_env(platform), "--as", "alice", *args)
    assert result.exit_code == 1, result.output
    assert expected in result.output and len(result.output.strip().splitlines()) == 1


def test_bad_arguments_exit_2_with_one_clear_line(platform: Platform) -> None:
    env = _env(platform)
    for args, words in (
        (("table", "create", "--game", "foo"), "no game 'foo'"),
        (("table", "create", "--blinds", "two"), "SMALL/BIG"),
        (("table", "create", "--bots", "shark"), "no bot policy 'shark'"),
        (("table", "create", "--game", "spit", "--bots", "tight"), "no Spit bot policy 'tight'"),
        (("table", "create", "--game", "spit", "--bots", "spit,spit,spit"), "at most 2"),
        (("table", "create", "--game", "video-poker", "--bots", "spit"), "takes no bots"),
        (("table", "create", "--seats", "11"), "less than or equal to 10"),
        (("account", "deposit", "--", "-5"), "positive"),
        (("token", "--subject", "alice", "--ttl", "0"), "already expired"),
        (("simulate", "--game", "foo", "--hands", "1"), "unknown game 'foo'"),
        (("simulate", "--seats", "11", "--hands", "1"), "not 11"),
    ):
        result = croupier(env, "--as", "alice", *args)
        assert result.exit_code == 2, (args, result.output)
        assert words in result.output, (args, result.output)


def test_a_platform_that_is_down_is_one_line_and_exit_3() -> None:
    down = {
        "CROUPIER_TABLE_TARGET": f"127.0.0.1:{_free_port()}",
        "CROUPIER_LEDGER_TARGET": f"127.0.0.1:{_free_port()}",
        "CROUPIER_AUTH_KEY": KEY,
    }
    for args in (
        ("table", "list"),
        ("account", "balance"),
        ("view", "t1"),
        ("simulate", "--full-stack", "--hands", "1"),
    ):
        result = croupier(down, "--as", "alice", "--timeout", "1", *args)
        assert result.exit_code == 3, (args, result.output)
        said = [line for line in result.output.splitlines() if line.startswith("croupier:")]
        assert len(said) == 1 and "make run" in said[0], result.output


def test_nobody_named_is_exit_2_saying_what_to_pass() -> None:
    result = croupier({"CROUPIER_AUTH_KEY": KEY, "CROUPIER_PLAYER": ""}, "table", "list")
    assert result.exit_code == 2 and "--as NAME" in result.output


@pytest.mark.parametrize(
    "game", ["holdem", "holdem-hilo", "spit-in-the-ocean", "six-card-open-draw"]
)
def test_every_game_there_is_can_be_created_and_joined(platform: Platform, game: str) -> None:
    env = _env(platform)
    created = croupier(
        env, "--as", "alice", "table", "create", "--game", game, "--seats", "2", "--json"
    )
    assert created.exit_code == 0, created.output
    table = json.loads(created.stdout)["table_id"]
    platform.fund("alice", 10_000)
    joined = croupier(env, "--as", "alice", "join", table)
    assert joined.exit_code == 0, joined.output
    shown = croupier(env, "--as", "alice", "table", "show", table)
    assert shown.exit_code == 0 and game in shown.output, shown.output


def test_a_spit_table_is_created_with_its_bots_requested(platform: Platform) -> None:
    env = _env(platform)
    created = croupier(
        env, "--as", "alice", "table", "create", "--game", "spit", "--stake", "5",
        "--bots", "spit", "--difficulty", "1", "--json",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    view = json.loads(created.stdout)
    assert [(b["policy"], b["difficulty"]) for b in view["requested_bots"]] == [("spit", 1.0)]
    said = croupier(env, "--as", "alice", "table", "create", "--game", "spit", "--bots", "spit")
    assert said.exit_code == 0 and "against a bot" in said.output, said.output
