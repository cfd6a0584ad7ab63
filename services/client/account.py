"""`croupier account ...`: a player's chips in the ledger.

croupier --as alice account deposit 1000    # the development cashier (croupier run)
croupier --as alice account balance
croupier --as alice account history
croupier --as alice account cashout 250
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from services.client.identity import Identity
from services.client.reporting import fail, print_json, reported, to_json
from services.sdk import PermissionDenied, player_account

app = typer.Typer(
    name="account", help="Your chips: deposit, balance, history, cash out.", no_args_is_help=True
)
Currency = Annotated[str, typer.Option(help="Currency of the account.")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def _positive(amount: int) -> int:
    if amount <= 0:
        raise typer.BadParameter(f"must be a positive number of chips, not {amount}")
    return amount


Amount = Annotated[int, typer.Argument(help="Chips (a whole positive number).", callback=_positive)]


@app.command("open")
@reported
def open_account(ctx: typer.Context, currency: Currency = "CHIP", json: Json = False) -> None:
    """Open your account (nothing happens if it is open already).

    Example: croupier --as alice account open
    """
    identity: Identity = ctx.obj
    with identity.connect() as c:
        answer = c.ledger.open_account(identity.subject(), currency=currency)
    if json:
        print_json(answer)
    else:
        state = "opened" if answer.created else "already open"
        typer.echo(f"{answer.account.id}: {state}")


@app.command()
@reported
def deposit(
    ctx: typer.Context, amount: Amount, currency: Currency = "CHIP", json: Json = False
) -> None:
    """Put chips in your account (opening it if needed).

    Under `croupier run` the development cashier pays a player at most 100,000 chips a
    deposit; in production deposits are the platform's own and this is refused.

    Example: croupier --as alice account deposit 1000
    """
    identity: Identity = ctx.obj
    subject = identity.subject()
    account = player_account(subject, currency)
    with identity.connect() as c:
        c.ledger.open_account(subject, currency=currency)
        try:
            c.ledger.deposit(account, amount, currency=currency)
        except PermissionDenied as exc:
            fail(
                f"{exc.message}. Deposits are the platform's own unless the development cashier"
                " is on (croupier run; CROUPIER_LEDGER_CASHIER_LIMIT)",
                4,
            )
        balance = c.ledger.balance(account)
    if json:
        print_json(balance)
    else:
        typer.echo(f"{account}: deposited {amount}; available {balance.available}")


@app.command()
@reported
def balance(ctx: typer.Context, currency: Currency = "CHIP", json: Json = False) -> None:
    """Your balance: posted, held for buy-ins in progress, available.

    Example: croupier --as alice account balance --json
    """
    identity: Identity = ctx.obj
    account = player_account(identity.subject(), currency)
    with identity.connect() as c:
        answer = c.ledger.balance(account)
    if json:
        print_json(answer)
    else:
        typer.echo(
            f"{account}: balance {answer.balance}, held {answer.held}, available {answer.available}"
        )


@app.command()
@reported
def history(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(help="Most movements to show, newest first.", min=1)] = 20,
    currency: Currency = "CHIP",
    json: Json = False,
) -> None:
    """Your account's movements, newest first.

    Example: croupier --as alice account history --limit 5
    """
    identity: Identity = ctx.obj
    account = player_account(identity.subject(), currency)
    with identity.connect() as c:
        movements = []
        for movement in c.ledger.history(account, page_size=min(limit, 500)):
            movements.append(movement)
            if len(movements) >= limit:
                break
    if json:
        print_json({"account_id": account, "movements": [to_json(m) for m in movements]})
        return
    table = Table(title=account)
    for column in ("kind", "change", "held", "table", "reason"):
        table.add_column(column)
    for m in movements:
        kind = type(m).DESCRIPTOR.fields_by_name["kind"].enum_type.values_by_number[m.kind].name  # type: ignore[union-attr]
        table.add_row(
            kind.removeprefix("MOVEMENT_KIND_").lower(),
            f"{m.balance_delta:+d}" if m.balance_delta else "",
            f"{m.held_delta:+d}" if m.held_delta else "",
            m.metadata.table_id,
            m.metadata.reason,
        )
    Console().print(table)


@app.command()
@reported
def cashout(
    ctx: typer.Context, amount: Amount, currency: Currency = "CHIP", json: Json = False
) -> None:
    """Take chips out of your account (chips at a table come back when you leave it).

    Example: croupier --as alice account cashout 250
    """
    identity: Identity = ctx.obj
    subject = identity.subject()
    account = player_account(subject, currency)
    with identity.connect() as c:
        c.ledger.withdraw(account, amount, currency=currency)
        answer = c.ledger.balance(account)
    if json:
        print_json(answer)
    else:
        typer.echo(f"{account}: cashed out {amount}; available {answer.available}")
