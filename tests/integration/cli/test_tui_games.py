"""The terminal UI's video poker and Spit screens through textual's headless pilot against
the real services (table, dealer, ledger on loopback): a machine dealt, hinted, held and
paid on every line with the keyboard; a Spit deal readied and a play made with the keys,
and a play that lost a race told at once."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2 as vp
from services.client.tui.app import CroupierApp
from services.client.tui.spit_screen import SpitScreen
from services.client.tui.videopoker_screen import VideoPokerScreen
from services.sdk import ClientSettings, Croupier
from services.shared import auth
from tests.integration.cli.test_videopoker_commands import ROYAL, bankroll
from tests.integration.table.conftest import KEY, Platform, view_of
from tests.integration.table.test_spit_table import create_spit_table, racing_deck

pytestmark = pytest.mark.integration
# Set to a directory to save the screens the README shows (docs/images).
SCREENSHOTS_ENV = "CROUPIER_TUI_SCREENSHOTS"


def connector(platform: Platform, player: str) -> Callable[[auth.Role], Croupier]:
    def connect(role: auth.Role) -> Croupier:
        token = auth.issue_token(KEY, player, role, 600)
        return Croupier(
            ClientSettings(
                table=f"127.0.0.1:{platform.port}",
                ledger=f"127.0.0.1:{platform.ledger_port}",
                token=token,
            )
        )

    return connect


def machine_of(screen: VideoPokerScreen) -> vp.VideoPokerView:
    assert screen.view is not None
    return screen.view.videopoker


def spit_of(screen: SpitScreen) -> spit_pb2.SpitView:
    assert screen.view is not None
    return screen.view.spit


async def until(
    pilot: Pilot[None], condition: Callable[[], object], what: str, timeout: float = 30
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not {what} after {timeout:.0f} s"
        await pilot.pause(0.05)


def test_a_machine_is_dealt_hinted_held_and_paid_with_the_keyboard(platform: Platform) -> None:
    platform.fund("alice", 1000)
    connect = connector(platform, "alice")
    with connect(auth.Role.PLAYER) as c:
        table = c.videopoker.open_machine(paytables=["jacks-9-6"]).table_id
    bankroll(platform)
    platform.decks[f"{table}.hand-1.deal"] = ROYAL

    async def play() -> None:
        app = CroupierApp("alice", connect, table=table)
        async with app.run_test(size=(140, 44)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, VideoPokerScreen), "the machine")
            screen = app.screen
            assert isinstance(screen, VideoPokerScreen)
            await until(
                pilot,
                lambda: screen.view is not None and screen.view.videopoker.credits == 500,
                "seated with 500 credits",
            )
            await pilot.press("l")  # 5 lines -> 10
            await pilot.press("l")  # -> 3
            await pilot.press("d")
            await until(
                pilot,
                lambda: machine_of(screen).round.phase == vp.PHASE_HOLDING,
                "the five cards",
            )
            assert list(machine_of(screen).round.cards) == ROYAL
            await pilot.press("2")
            assert screen.holds == {1}
            await pilot.press("2")
            await pilot.press("h")
            await until(pilot, lambda: screen.hint is not None, "the advisor's hint")
            await pilot.press("a")
            assert screen.holds == {0, 1, 2, 3, 4}
            shot = app.export_screenshot()
            assert shot.count("HELD") == 5 and "advisor" in shot
            shots = os.environ.get(SCREENSHOTS_ENV, "")
            if shots:
                app.save_screenshot(filename="tui-videopoker-hold.svg", path=shots)
            await pilot.press("enter")
            await until(
                pilot,
                lambda: machine_of(screen).last.win > 0,
                "every line paid",
            )
            last = machine_of(screen).last
            assert [r.hand for r in last.results] == ["royal-flush"] * 3 and last.win == 750
            assert machine_of(screen).credits == 500 - 3 + 750
            assert "won" in app.export_screenshot()
            if shots:
                app.save_screenshot(filename="tui-videopoker-paid.svg", path=shots)
            await pilot.press("escape")

    asyncio.run(play())


def test_a_spit_deal_is_played_with_the_keys_and_a_lost_race_is_told_at_once(
    platform: Platform,
) -> None:
    table = create_spit_table(platform)
    platform.decks[f"{table}.hand-1"] = racing_deck()
    platform.fund("ann", 1000)
    platform.fund("bob", 1000)
    bob = platform.table("bob")

    async def play() -> None:
        app = CroupierApp("ann", connector(platform, "ann"), table=table)
        async with app.run_test(size=(140, 44)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SpitScreen), "the Spit table")
            screen = app.screen
            assert isinstance(screen, SpitScreen)
            await until(
                pilot, lambda: screen.view is not None and screen.view.viewer_seat == 0, "seated"
            )
            bob.JoinTable(
                table_pb2.JoinTableRequest(
                    table_id=table, seat=1, buy_in=100, idempotency_key="join"
                )
            )
            await until(
                pilot,
                lambda: spit_of(screen).phase == spit_pb2.PHASE_READY,
                "the layouts",
            )
            await pilot.press("r")
            bob.Act(
                table_pb2.ActRequest(
                    table_id=table,
                    idempotency_key="ready",
                    spit=spit_pb2.SpitMove(ready=spit_pb2.Ready()),
                )
            )
            await until(
                pilot,
                lambda: spit_of(screen).phase == spit_pb2.PHASE_PLAYING and spit_of(screen).legal,
                "the deal under way with a move for ann",
            )
            assert "[1] play 9♥ from place 1 onto pile 1 (on 8♣)" in screen.moves_plain()
            shots = os.environ.get(SCREENSHOTS_ENV, "")
            if shots:
                app.save_screenshot(filename="tui-spit.svg", path=shots)
            stale = screen.view
            # Bob plays his nine on pile 1 first; ann's screen still shows 8c there.
            bob.Act(
                table_pb2.ActRequest(
                    table_id=table,
                    idempotency_key=uuid.uuid4().hex,
                    spit=spit_pb2.SpitMove(
                        play_card=spit_pb2.PlayCard(source=0, target=0, card="9s"),
                        expected=spit_pb2.Expected(deal=1, top="8c"),
                    ),
                )
            )
            screen.view = stale
            screen.action_play(0)
            await until(
                pilot, lambda: any("too late" in line for line in screen.log_lines), "the race"
            )
            told = next(line for line in screen.log_lines if "too late" in line)
            assert "is now 9s" in told
            assert list(view_of(bob, table).spit.middle[0].cards) == ["8c", "9s"]
            await pilot.press("9")  # the keys are the numbered moves: there is no ninth
            await until(
                pilot, lambda: any("no move 9" in line for line in screen.log_lines), "move 9"
            )

    asyncio.run(play())
