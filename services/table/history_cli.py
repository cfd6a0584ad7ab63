"""`croupier history TABLE [HAND]`: print or save a finished hand's history (text and PHH).

Talks to the table service like any client: the address comes from --target or
CROUPIER_TABLE_TARGET (default 127.0.0.1:50051); the bearer token from --token or
CROUPIER_TOKEN, else one is signed for --as (role admin: the complete history) with
the operator key `croupier run` keeps in .run/keys (services.shared.operator_keys).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import grpc
import typer

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth
from services.shared.channels import connect
from services.shared.operator_keys import operator_credentials
from services.shared.settings import AUTH_KEY_ENV

DEFAULT_TARGET = "127.0.0.1:50051"


def _token(token: str, subject: str, role: auth.Role) -> str:
    token = token or os.environ.get("CROUPIER_TOKEN", "").strip()
    if token:
        return token
    try:
        found = operator_credentials(Path(".run"))
        if found is None:
            typer.echo(
                f"pass --token, or set CROUPIER_TOKEN, or start `croupier run` here "
                f"(or set {AUTH_KEY_ENV} in development)",
                err=True,
            )
            raise typer.Exit(2)
        return auth.issue_token(found[0], subject, role, 300)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc


def history(
    table: Annotated[str, typer.Argument(help="Table id.")],
    hand: Annotated[int, typer.Argument(help="Hand number; 0 = the last finished hand.")] = 0,
    phh: Annotated[bool, typer.Option("--phh", help="Print only the PHH (pokerkit) form.")] = False,
    out: Annotated[
        Path | None, typer.Option(help="Save <out>.txt and <out>.phh instead of printing.")
    ] = None,
    target: Annotated[str, typer.Option(help="Table service address.")] = "",
    token: Annotated[str, typer.Option(help="Bearer token to call with.")] = "",
    as_: Annotated[str, typer.Option("--as", help="Subject to sign a token for.")] = "admin",
    role: Annotated[auth.Role, typer.Option(help="Role of that token.")] = auth.Role.ADMIN,
) -> None:
    """Print or save a finished hand's history as readable text and PHH."""
    address = target or os.environ.get("CROUPIER_TABLE_TARGET", "") or DEFAULT_TARGET
    with connect(address, _token(token, as_, role)) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        try:
            response = stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=table, hand_number=hand), timeout=30
            )
        except grpc.RpcError as error:
            typer.echo(f"{error.code().name}: {error.details()}", err=True)
            raise typer.Exit(1) from None
    if out is not None:
        text_path, phh_path = out.with_suffix(".txt"), out.with_suffix(".phh")
        text_path.write_text(response.text)
        phh_path.write_text(response.phh)
        typer.echo(f"hand {response.hand_number}: wrote {text_path} and {phh_path}")
        return
    typer.echo(response.phh if phh else response.text + "\n" + response.phh, nl=False)
