"""`croupier vp ...` and `table create --game spit|video-poker` through typer's runner
against the real services: a machine opened, a royal flush dealt (a pinned deck), the hint
and the hold paid on every line through the ledger; bad input is one line and exit 2."""

from __future__ import annotations

import json
import uuid

import pytest

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from tests.integration.cli.test_cli_commands import _env, croupier
from tests.integration.table.conftest import Platform

pytestmark = pytest.mark.integration

ROYAL = ["Ah", "Kh", "Qh", "Jh", "Th"]


def bankroll(platform: Platform, amount: int = 1_000_000) -> None:
    """The house pays the machine's wins from its account (opened with the first table)."""
    platform.ledger().Deposit(
        ledger_pb2.DepositRequest(
            idempotency_key=f"bankroll/{uuid.uuid4().hex}",
            account_id="house:rake:CHIP",
            amount=chips_pb2.ChipAmount(currency="CHIP", amount=amount),
        )
    )


def test_a_machine_opened_dealt_hinted_and_held_pays_every_line(platform: Platform) -> None:
    env = _env(platform)
    platform.fund("alice", 1000)
    listed = croupier(env, "--as", "alice", "vp", "paytables", "--json")
    assert listed.exit_code == 0, listed.output
    names = [p["name"] for p in json.loads(listed.stdout)]
    assert "jacks-9-6" in names
    opened = croupier(
        env, "--as", "alice", "vp", "open", "--buy-in", "500", "-p", "jacks-9-6", "--json"
    )
    assert opened.exit_code == 0, opened.output
    machine = json.loads(opened.stdout)
    table = machine["table_id"]
    assert machine["videopoker"]["credits"] == "500"
    assert platform.balance("player:alice:CHIP") == 500
    platform.decks[f"{table}.hand-1.deal"] = ROYAL
    bankroll(platform)  # (its account is opened with the first table)

    dealt = croupier(env, "--as", "alice", "vp", "deal", table, "--lines", "3")
    assert dealt.exit_code == 0, dealt.output
    round_ = json.loads(croupier(env, "--as", "alice", "vp", "show", table, "--json").stdout)[
        "videopoker"
    ]["round"]
    assert round_["cards"] == ROYAL and round_["phase"] == "PHASE_HOLDING"
    hint = croupier(env, "--as", "alice", "vp", "hint", table)
    assert hint.exit_code == 0, hint.output
    assert f"croupier vp hold {table} 0 1 2 3 4" in hint.output
    held = croupier(env, "--as", "alice", "vp", "hold", table, "0", "1", "2", "3", "4")
    assert held.exit_code == 0, held.output
    assert held.output.count("royal-flush") == 3 and "won 750" in held.output
    shown = croupier(env, "--as", "alice", "vp", "show", table, "--json")
    assert json.loads(shown.stdout)["videopoker"]["credits"] == str(500 - 3 + 750)
    left = croupier(env, "--as", "alice", "leave", table)
    assert left.exit_code == 0, left.output
    assert platform.balance("player:alice:CHIP") == 1000 - 3 + 750


def test_bad_video_poker_input_is_one_line_and_the_right_exit_code(platform: Platform) -> None:
    env = _env(platform)
    platform.fund("bob", 1000)
    opened = croupier(env, "--as", "bob", "vp", "open", "--buy-in", "100", "--json")
    table = json.loads(opened.stdout)["table_id"]
    early = croupier(env, "--as", "bob", "vp", "hint", table)
    assert early.exit_code == 1 and len(early.output.strip().splitlines()) == 1, early.output
    lines = croupier(env, "--as", "bob", "vp", "deal", table, "--lines", "4")
    assert lines.exit_code == 2 and "3, 5 or 10" in lines.output, lines.output
    position = croupier(env, "--as", "bob", "vp", "hold", table, "7")
    assert position.exit_code == 2 and "0 to 4" in position.output, position.output
    poker = json.loads(
        croupier(env, "--as", "bob", "table", "create", "--seats", "2", "--json").stdout
    )["table_id"]
    wrong = croupier(env, "--as", "bob", "vp", "deal", poker)
    assert wrong.exit_code == 2 and "no video poker machine" in wrong.output, wrong.output
    assert platform.balance("player:bob:CHIP") == 900  # nothing was bet


@pytest.mark.parametrize(("game", "seats"), [("spit", 2), ("video-poker", 1)])
def test_spit_and_video_poker_tables_can_be_created_and_joined(
    platform: Platform, game: str, seats: int
) -> None:
    env = _env(platform)
    created = croupier(env, "--as", "alice", "table", "create", "--game", game, "--json")
    assert created.exit_code == 0, created.output
    view = json.loads(created.stdout)
    assert view["options"]["seats"] == seats
    platform.fund("alice", 1000)
    joined = croupier(env, "--as", "alice", "join", view["table_id"])
    assert joined.exit_code == 0, joined.output
    # (as JSON: the shared Redis holds other tests' tables, and the printed table wraps long
    # ids to fit the terminal)
    listed = croupier(env, "--as", "alice", "table", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert view["table_id"] in {t["table_id"] for t in json.loads(listed.stdout)}
    crowded = croupier(env, "--as", "alice", "table", "create", "--game", game, "--seats", "3")
    assert crowded.exit_code == 2 and f"{seats} seat" in crowded.output, crowded.output
