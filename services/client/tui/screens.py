"""Which screen plays a table: the game's own (video poker, Spit), else the poker table's."""

from __future__ import annotations

from textual.screen import Screen

from services.client.tui.table_screen import TableScreen
from services.client.tui.videopoker_screen import VideoPokerScreen


def screen_for(game: str | None, table_id: str, *, spectate: bool) -> Screen[None]:
    """`game` is the set member of the table's `TableOptions.game_options` (None: poker in
    its first spelling)."""
    if game == "videopoker":
        return VideoPokerScreen(table_id, spectate=spectate)
    if game == "spit":
        from services.client.tui.spit_screen import SpitScreen

        return SpitScreen(table_id, spectate=spectate)
    return TableScreen(table_id, spectate=spectate)
