"""`croupier dealer ...`: the console of a live-dealer table's dealer (docs/games/
irregularities.md). Every card that leaves the deck is reported; a misdeal is declared.

    croupier --as maria dealer report T1 Ah --seat 3          # a hole card, face down
    croupier --as maria dealer report T1 Kd --seat 4 --face-up
    croupier --as maria dealer report T1 2c --burn
    croupier --as maria dealer report T1 7h --board
    croupier --as maria dealer exposed T1 Qs "flashed while pitching"
    croupier --as maria dealer misdeal T1 "two cards stuck together"
    croupier --as maria dealer next T1

With `--as NAME` the command signs a dealer-console token for "NAME@TABLE" (the development
key, or the one `croupier run` keeps); with `--token` it uses the console's own credential.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from croupier.table.v1 import table_pb2
from services.client.identity import Identity
from services.client.reporting import reported
from services.shared import auth

app = typer.Typer(
    name="dealer",
    help="A live-dealer table's console: report each card dealt, declare a misdeal.",
    no_args_is_help=True,
)
TableId = Annotated[str, typer.Argument(help="The live-dealer table's id.")]
Hand = Annotated[int, typer.Option(help="The hand being dealt (0: whichever it is).", min=0)]
Target = Annotated[str, typer.Option(help="The table service's address (host:port).")]


def _console(identity: Identity, table_id: str, target: str) -> Identity:
    """The identity of this table's dealer console: its own token (`--token`, which wins), or
    one signed here for NAME@TABLE."""
    if target:
        identity = replace(identity, table_target=target)
    return replace(identity, player=f"{identity.subject()}@{table_id}")


@app.command()
@reported
def report(
    ctx: typer.Context,
    table_id: TableId,
    card: Annotated[str, typer.Argument(help='The card, rank then suit: "Ah", "Td", "2c".')],
    seat: Annotated[int | None, typer.Option(help="To this seat (0-based).", min=0)] = None,
    board: Annotated[bool, typer.Option("--board", help="Turned on the board.")] = False,
    burn: Annotated[bool, typer.Option("--burn", help="Burned.")] = False,
    face_up: Annotated[
        bool, typer.Option("--face-up", help="The card was dealt, or fell, face up.")
    ] = False,
    hand: Hand = 0,
    target: Target = "",
) -> None:
    """Report a card as it leaves the deck: to a seat, the board or the burn pile.

    Example: croupier --as maria dealer report T1 Ah --seat 3
    """
    if (seat is not None) + board + burn != 1:
        raise typer.BadParameter("say where the card went: --seat N, --board or --burn")
    identity = _console(ctx.obj, table_id, target)
    with identity.connect(auth.Role.DEALER_CONSOLE) as c:
        done = c.tables.report_card(
            table_id, card, seat=seat, board=board, burn=burn, face_up=face_up, hand_number=hand
        )
    place = f"seat {seat}" if seat is not None else "the board" if board else "the burn pile"
    typer.echo(f"{card} to {place} recorded (table version {done.version})")
    typer.echo(_next_line(done.next_card if done.HasField("next_card") else None))


@app.command()
@reported
def exposed(
    ctx: typer.Context,
    table_id: TableId,
    card: Annotated[str, typer.Argument(help='The hole card that was exposed ("Ah").')],
    reason: Annotated[str, typer.Argument(help="How (shown to the players).")] = "",
    hand: Hand = 0,
    by_player: Annotated[
        bool, typer.Option("--by-player", help="The player exposed their own card: it is theirs.")
    ] = False,
    target: Target = "",
) -> None:
    """A card dealt face down was exposed by the dealer: in the deal a misdeal if it was the
    first or second card dealt, else it is replaced after the deal; in a draw game's draw it is
    replaced after the other players have drawn. --by-player: the player exposed it (it is
    theirs, shown to everyone).

    Example: croupier --as maria dealer exposed T1 Qs "flashed while pitching"
    """
    identity = _console(ctx.obj, table_id, target)
    with identity.connect(auth.Role.DEALER_CONSOLE) as c:
        done = c.tables.report_exposed_card(
            table_id, card, reason, hand_number=hand, by_player=by_player
        )
    who = "by its player " if by_player else ""
    typer.echo(f"{card} exposed {who}recorded (table version {done.version})")
    typer.echo(_next_line(done.next_card if done.HasField("next_card") else None))


@app.command()
@reported
def misdeal(
    ctx: typer.Context,
    table_id: TableId,
    reason: Annotated[str, typer.Argument(help="What happened (shown to the players).")],
    hand: Hand = 0,
    target: Target = "",
) -> None:
    """Declare a misdeal (before the hand's first action): every chip put in but the blinds
    goes back and the hand is dealt again.

    Example: croupier --as maria dealer misdeal T1 "the deck was found short"
    """
    if not reason.strip():
        raise typer.BadParameter("say what happened", param_hint="REASON")
    identity = _console(ctx.obj, table_id, target)
    with identity.connect(auth.Role.DEALER_CONSOLE) as c:
        done = c.tables.report_misdeal(table_id, reason, hand_number=hand)
    typer.echo(f"misdeal recorded: the hand will be redealt (table version {done.version})")
    typer.echo(_next_line(done.next_card if done.HasField("next_card") else None))


@app.command("next")
@reported
def next_card(ctx: typer.Context, table_id: TableId, target: Target = "") -> None:
    """Say which card the table expects next (where it goes, face up or down).

    Example: croupier --as maria dealer next T1
    """
    identity = _console(ctx.obj, table_id, target)
    with identity.connect(auth.Role.DEALER_CONSOLE) as c:
        view = c.tables.view(table_id)
    typer.echo(_next_line(view.next_card if view.HasField("next_card") else None))


def _next_line(due: table_pb2.CardDue | None) -> str:
    """The console's line for the card due next."""
    if due is None:
        return "next: no card is due (the players are acting, or no hand is being dealt)"
    if due.recipient == table_pb2.CARD_RECIPIENT_SEAT:
        where = f"--seat {due.seat}"
    elif due.recipient == table_pb2.CARD_RECIPIENT_BOARD:
        where = "--board"
    else:
        where = "--burn"
    how = " --face-up" if due.face_up else ""
    return f"next: {due.description} ({where}{how})"
