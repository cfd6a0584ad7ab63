"""A new user's first minutes, against the platform exactly as `make run` starts it (private
Redis, every service, the Celery worker that seats and plays bots):

1. the README's quickstart through the `croupier` CLI: fund yourself with the development
   cashier, create a table with two bots, sit down, play a whole hand, verify its shuffle —
   all within a minute of the platform being up;
2. the terminal UI through textual's headless pilot: create a table with two bots from the
   lobby, play a whole hold'em hand with the keyboard and see the pot awarded; a spectator
   of that table sees no hole card before the showdown.
"""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest
from google.protobuf import json_format
from typer.testing import CliRunner, Result

from croupier.dealer.v1 import dealer_pb2
from services.client.cli import app
from services.client.identity import Identity
from services.sdk import shuffle_id
from tests.e2e.conftest import Running

pytestmark = pytest.mark.e2e
SUITS = "♠♥♦♣"
# Set to a directory to save the UI's screens there as SVG (docs/images holds the README's).
SCREENSHOTS_ENV = "CROUPIER_TUI_SCREENSHOTS"


@pytest.fixture(scope="module")
def platform(croupier_run: Running) -> Running:
    return croupier_run


def croupier(platform: Running, *args: str) -> Result:
    env = {**platform.env, "CROUPIER_AUTH_KEY": "", "CROUPIER_PLAYER": "", "CROUPIER_TOKEN": ""}
    result = CliRunner().invoke(
        app, ["--state-dir", str(platform.state_dir), *args], env=env, catch_exceptions=False
    )
    assert "Traceback" not in result.output
    return result


def test_the_quickstart_plays_a_hand_within_a_minute(platform: Running) -> None:
    began = time.monotonic()
    me = ("--as", "alice")
    funded = croupier(platform, *me, "account", "deposit", "1000")
    assert funded.exit_code == 0, funded.output
    created = croupier(
        platform, *me, "table", "create", "--seats", "3", "--bots", "tight,equity", "--json"
    )
    assert created.exit_code == 0, created.output
    table = json.loads(created.stdout)["table_id"]
    joined = croupier(platform, *me, "join", table)
    assert joined.exit_code == 0, joined.output
    end = time.monotonic() + 60
    while time.monotonic() < end:
        view = json.loads(croupier(platform, *me, "view", table, "--json").stdout)
        if int(view.get("hand_number", 0)) > 1 or (
            int(view.get("hand_number", 0)) == 1 and not view.get("hand_in_progress")
        ):
            break
        legal = {a["action"] for a in view.get("poker", {}).get("legal_actions", [])}
        if legal:
            move = (
                "check"
                if "ACTION_CHECK" in legal
                else "call"
                if "ACTION_CALL" in legal
                else "show"
                if "ACTION_SHOW" in legal
                else "fold"
            )
            acted = croupier(platform, *me, "act", table, move)
            assert acted.exit_code in (0, 1), acted.output  # 1: the turn moved on meanwhile
        else:
            time.sleep(0.2)
    history = croupier(platform, *me, "history", table, "1")
    assert history.exit_code == 0, history.output
    played_s = time.monotonic() - began
    took = platform.startup_s + played_s
    # make test -s shows both
    print(f"first hand finished {played_s:.1f} s after the platform was up ({took:.1f} s in all)")
    assert took < 60, f"a new user's first hand took {took:.0f} s, over a minute"
    verified = croupier(platform, *me, "verify", "--table", table, "--hand", "1")
    assert verified.exit_code == 0, verified.output
    assert "OK" in verified.output and "cards proven" in verified.output  # her card proof
    # The dealer gives a player no seed (it would show the bots' unshown hands): its JSON, as
    # grpcurl prints it (camelCase), is the public record, which croupier verify refuses
    # naming the card proof instead.
    identity = Identity(player="alice", state_dir=platform.state_dir)
    old_env = dict(os.environ)
    os.environ.update(platform.env)
    try:
        with identity.connect() as c:
            info = c.dealer.shuffle(shuffle_id(table, 1))
    finally:
        os.environ.clear()
        os.environ.update(old_env)
    for name, document in (
        ("info.json", json_format.MessageToJson(info)),
        ("answer.json", json_format.MessageToJson(dealer_pb2.GetShuffleResponse(shuffle=info))),
    ):
        path = platform.state_dir.parent / name
        path.write_text(document)
        assert "revealedSeed" not in document and "positionsRoot" in document
        checked = croupier(platform, "verify", str(path))
        assert checked.exit_code == 2 and "no seed" in checked.output, checked.output
    left = croupier(platform, *me, "leave", table)
    assert left.exit_code == 0, left.output
    watched = croupier(platform, *me, "watch", table, "--from-version", "1", "--events", "3")
    assert watched.exit_code == 0 and len(watched.output.splitlines()) == 3, watched.output


def test_the_terminal_ui_plays_a_hand_against_two_bots_and_a_spectator_sees_no_hole_card(
    platform: Running,
) -> None:
    from services.client.tui.app import CroupierApp
    from services.client.tui.lobby import LobbyScreen
    from services.client.tui.table_screen import TableScreen

    old = dict(os.environ)
    os.environ.update(platform.env)
    try:
        identity = Identity(player="dave", state_dir=platform.state_dir)
        spectator = Identity(player="sam", state_dir=platform.state_dir)
        asyncio.run(_play_and_watch(identity, spectator, CroupierApp, LobbyScreen, TableScreen))
    finally:
        os.environ.clear()
        os.environ.update(old)


async def _until(pilot, condition, what: str, timeout: float = 45.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.1)


async def _play_and_watch(identity, spectator, CroupierApp, LobbyScreen, TableScreen) -> None:  # type: ignore[no-untyped-def]  # noqa: N803
    app = CroupierApp("dave", identity.connect)
    async with app.run_test(size=(140, 44)) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("dollar_sign")  # the development cashier
        await _until(
            pilot,
            lambda: "1000 chips" in str(app.screen.query_one("#balance").render()),
            "the deposit",
        )
        shots = os.environ.get(SCREENSHOTS_ENV, "")
        if shots:
            await pilot.pause(2.5)  # the lobby lists the tables
            app.save_screenshot(filename="tui-lobby.svg", path=shots)
        await pilot.press("c")
        await _until(pilot, lambda: app.screen.query("#create"), "the create form")
        await pilot.click("#create")  # hold'em 1/2, three seats, bots tight and equity
        await _until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        table: TableScreen = app.screen
        await _until(
            pilot,
            lambda: (
                table.view is not None
                and table.view.viewer_seat >= 0
                and table.view.hand_in_progress
            ),
            "the first hand with dave seated",
        )
        # Dave plays with the keyboard (check when he can, else call) until a hand he acted
        # in is over.
        acted: set[int] = set()
        end = time.monotonic() + 90

        def finished() -> int | None:
            for hand in acted:
                if any(
                    line.split(None, 1)[-1].startswith(f"hand {hand} ends")
                    for line in table.log_lines
                ):
                    return hand
            return None

        while finished() is None:
            assert time.monotonic() < end, table.log_lines[-20:]
            view = table.view
            legal = {a.action for a in view.poker.legal_actions} if view else set()
            if legal and view is not None:
                acted.add(view.hand_number)
                await pilot.press(
                    "k" if 2 in legal else "c" if 3 in legal else "s" if 9 in legal else "f"
                )
                await pilot.pause(0.3)
            else:
                await pilot.pause(0.1)
        hand = finished()
        lines = table.log_lines
        start = next((n for n, line in enumerate(lines) if f"hand {hand} starts" in line), 0)
        stop = next(n for n, line in enumerate(lines) if f"hand {hand} ends" in line)
        played = lines[start : stop + 1]
        assert not any("(dave) timed out" in line for line in played), "\n".join(played)
        assert any("(dave) checks" in line or "(dave) calls" in line for line in played), played
        if shots:
            await pilot.pause(0.5)
            app.save_screenshot(filename="tui-table.svg", path=shots)
        awarded = [line for line in played if "main pot" in line or "side pot" in line]
        assert awarded and "wins" in awarded[0], played
        assert "wins" in str(table.query_one("#felt").render())
        # A spectator of the same table, while a hand is on and before any showdown: no hole
        # card at all.
        await _until(
            pilot, lambda: table.view is not None and table.view.hand_in_progress, "the next hand"
        )
        seen = table.view
        assert seen is not None
        watcher = CroupierApp("sam", spectator.connect, table=seen.table_id, spectate=True)
        async with watcher.run_test(size=(140, 44)) as spy:
            await _until(
                spy,
                lambda: isinstance(watcher.screen, TableScreen) and watcher.screen.view is not None,
                "the spectator's view",
            )
            watched: TableScreen = watcher.screen

            def dealt_not_shown() -> bool:
                view = watched.view
                return (
                    view is not None
                    and view.hand_in_progress
                    and view.poker.phase not in ("showdown", "")
                    and any(seat.cards for seat in view.poker.seats)
                )

            await _until(spy, dealt_not_shown, "a hand dealt and not yet at its showdown")
            view = watched.view
            assert view is not None and view.viewer_seat == -1
            dealt = [seat for seat in view.poker.seats if seat.cards]
            assert all(card == "??" for seat in dealt for card in seat.cards), dealt
            drawn = str(watched.query_one("#seats").render())
            assert not any(suit in drawn for suit in SUITS), drawn
            if shots:
                watcher.save_screenshot(filename="tui-spectator.svg", path=shots)


def test_bots_run_seats_sdk_bots_that_play_and_leave(platform: Running) -> None:
    me = ("--as", "erin")
    created = croupier(platform, *me, "table", "create", "--seats", "2", "--json")
    assert created.exit_code == 0, created.output
    table = json.loads(created.stdout)["table_id"]
    ran = croupier(
        platform, *me, "bots", "run", table, "--policy", "tight", "--count", "2", "--hands", "2"
    )
    assert ran.exit_code == 0, ran.output
    assert ran.output.count(" sits at seat ") == 2 and "stopped:" in ran.output, ran.output
    view = json.loads(croupier(platform, *me, "view", table, "--json").stdout)
    assert int(view["hand_number"]) >= 2
