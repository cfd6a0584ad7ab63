"""`croupier verify`: check a hand's shuffle yourself, from the live platform or a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from services.client.identity import Identity
from services.client.reporting import reported
from services.dealer.verify_cli import check_shuffle
from services.dealer.verify_cli import verify as verify_file
from services.sdk import NotFound, shuffle_id


@reported
def verify(
    ctx: typer.Context,
    file: Annotated[
        Path | None,
        typer.Argument(
            help="A hand history JSON: croupier-hand-history/1, or the dealer's ShuffleInfo JSON"
            " as grpcurl prints it."
        ),
    ] = None,
    table: Annotated[str, typer.Option(help="Fetch the shuffle of this table's hand ...")] = "",
    hand: Annotated[int, typer.Option(help="... number N (with --table).", min=0)] = 0,
    commitment: Annotated[
        str, typer.Option(help="FILE: the commitment (hex) you saw before the hand.")
    ] = "",
    history: Annotated[
        Path | None,
        typer.Option(help="FILE: the hand's PHH history, every card checked against the order."),
    ] = None,
    contributor: Annotated[
        str, typer.Option(help="FILE: your player id: is your entropy in this deck?")
    ] = "",
    entropy: Annotated[
        str, typer.Option(help="FILE, with --contributor: the entropy (hex) you sent.")
    ] = "",
    strict: Annotated[
        bool, typer.Option(help="FILE: fail on anything a fair deal would not contain.")
    ] = False,
) -> None:
    """Re-derive every card of a dealt hand from the dealer's commitment and revealed seed.

    Exit status: 0 all match, 1 at the first mismatch, 2 when there is nothing to check.

    Examples: croupier --as alice verify --table T1 --hand 3;  croupier verify hand.json
    """
    if file is not None:
        if table or hand:
            raise typer.BadParameter("give a FILE or --table and --hand, not both")
        verify_file(file, commitment, history, contributor, entropy, strict)
        return
    if not table or not hand:
        raise typer.BadParameter("give a FILE, or --table T and --hand N")
    identity: Identity = ctx.obj
    name = shuffle_id(table, hand)
    with identity.connect() as c:
        try:
            info = c.dealer.shuffle(name)
        except NotFound:
            typer.echo(f"table {table} has no hand {hand} (no shuffle {name})", err=True)
            raise typer.Exit(2) from None
    ok, line = check_shuffle(info)
    typer.echo(line, err=not ok and line.startswith("cannot"))
    raise typer.Exit(0 if ok else (2 if line.startswith("cannot") else 1))
