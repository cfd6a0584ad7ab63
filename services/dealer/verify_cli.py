"""`croupier verify FILE`: check a hand history offline, with no server and no network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from services.dealer.history import HandHistoryError, describe, parse_hand_history


def verify(
    file: Annotated[
        Path, typer.Argument(help="Hand history JSON (format croupier-hand-history/1).")
    ],
) -> None:
    """Verify a closed hand: commitment, seed, contributions and every dealt card.

    Exit status: 0 all match, 1 at the first mismatch, 2 when the file cannot be read.
    """
    try:
        record = parse_hand_history(json.loads(file.read_text()))
    except (OSError, json.JSONDecodeError, HandHistoryError) as exc:
        typer.echo(f"cannot read {file}: {exc}", err=True)
        raise typer.Exit(2) from exc
    result = record.verify()
    typer.echo(f"shuffle {record.shuffle_id}: {describe(result, record.steps)}")
    raise typer.Exit(0 if result.ok else 1)
