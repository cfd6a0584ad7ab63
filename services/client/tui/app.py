"""The terminal UI's application: who plays, how to reach the platform, the screens.

croupier --as alice play              # the lobby
croupier --as alice play --table T1   # straight to a table (joining it if there is a seat)
croupier --as carol play --watch T1   # a spectator: no hidden card is ever shown
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.app import App
from textual.binding import BindingType

from services.client.tui.lobby import LobbyScreen
from services.client.tui.screens import screen_for
from services.sdk import Croupier, CroupierError
from services.shared import auth

Connect = Callable[[auth.Role], Croupier]


class CroupierApp(App[None]):
    """`connect(role)` gives SDK clients as the user (role player) or, for tables with bots,
    as the operator (role admin: under `croupier run` the development key signs it)."""

    TITLE = "croupier"
    CSS_PATH = "croupier.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [("q", "quit", "quit")]

    def __init__(
        self, player: str, connect: Connect, *, table: str = "", spectate: bool = False
    ) -> None:
        super().__init__()
        self.player = player
        self.connect = connect
        self.client = connect(auth.Role.PLAYER)
        self._start_table = table
        self._spectate = spectate
        self.sub_title = f"playing as {player}"

    def on_mount(self) -> None:
        self.push_screen(LobbyScreen())
        if self._start_table:
            self.open_start_table()

    @work(thread=True, group="app-start")
    def open_start_table(self) -> None:
        """The screen of the table given on the command line: its game's own."""
        try:
            game = self.client.tables.view(self._start_table).WhichOneof("game_view")
        except CroupierError as exc:
            self.call_from_thread(self.notify, exc.message, severity="error")
            return
        screen = screen_for(game, self._start_table, spectate=self._spectate)
        self.call_from_thread(self.push_screen, screen)

    def on_unmount(self) -> None:
        self.client.close()
