"""`croupier play`: the terminal UI (services/client/tui)."""

from __future__ import annotations

from typing import Annotated

import typer

from services.client.identity import Identity
from services.client.reporting import EXIT_USAGE, fail, reported
from services.sdk import Croupier
from services.shared import auth


@reported
def play(
    ctx: typer.Context,
    table: Annotated[str, typer.Option(help="Open this table straight away (and sit down).")] = "",
    watch: Annotated[str, typer.Option(help="Watch this table as a spectator.")] = "",
) -> None:
    """Play in the terminal: a lobby of tables, create one with bots, play or watch.

    Example: croupier --as alice play
    """
    from services.client.tui.app import CroupierApp  # textual loads only for this command

    if table and watch:
        fail("give --table or --watch, not both", EXIT_USAGE)
    identity: Identity = ctx.obj
    player = identity.subject()
    identity.bearer()  # says now, not inside the UI, when nobody is named

    def connect(role: auth.Role) -> Croupier:
        return identity.connect(role)

    CroupierApp(player, connect, table=table or watch, spectate=bool(watch)).run()
