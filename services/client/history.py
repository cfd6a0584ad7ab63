"""`croupier history TABLE [HAND]`: a finished hand as readable text, PHH or JSON."""

from __future__ import annotations

import enum
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from services.client.identity import Identity
from services.client.reporting import print_json, reported


class Format(enum.StrEnum):
    TEXT = "text"
    PHH = "phh"
    JSON = "json"


@reported
def history(
    ctx: typer.Context,
    table: Annotated[str, typer.Argument(help="Table id.")],
    hand: Annotated[
        int, typer.Argument(help="Hand number; 0 = the last finished hand.", min=0)
    ] = 0,
    phh: Annotated[
        bool, typer.Option("--phh", help="The PHH form (same as --format phh).")
    ] = False,
    format: Annotated[
        Format, typer.Option("--format", help="text, phh (pokerkit's format) or json.")
    ] = Format.TEXT,
    out: Annotated[
        Path | None, typer.Option(help="Save <out>.txt and <out>.phh instead of printing.")
    ] = None,
    target: Annotated[
        str, typer.Option(help="Table service address (default: CROUPIER_TABLE_TARGET).")
    ] = "",
    token: Annotated[
        str, typer.Option(help="Bearer token (default: the global --token / --as).")
    ] = "",
) -> None:
    """A finished hand's history, as you may see it (your own cards, and the cards shown).

    Example: croupier --as alice history T1 3 --format phh
    """
    identity: Identity = replace(
        ctx.obj, table_target=target or ctx.obj.table_target, token=token or ctx.obj.token
    )
    with identity.connect() as c:
        answer = c.tables.history(table, hand)
    if out is not None:
        text_path, phh_path = out.with_suffix(".txt"), out.with_suffix(".phh")
        text_path.write_text(answer.text)
        phh_path.write_text(answer.phh)
        typer.echo(f"hand {answer.hand_number}: wrote {text_path} and {phh_path}")
    elif format is Format.JSON and not phh:
        print_json(answer)
    elif format is Format.PHH or phh:
        if not answer.phh:
            typer.echo(f"hand {answer.hand_number} has no PHH form (poker only)", err=True)
            raise typer.Exit(1)
        typer.echo(answer.phh, nl=not answer.phh.endswith("\n"))
    else:
        typer.echo(answer.text, nl=not answer.text.endswith("\n"))
