"""The `croupier` command line (console script; `python -m services.client` too).

Every command that talks to the platform goes through the client SDK (services/sdk) and
says who it acts as with the global options (`croupier --as alice ...`, services/client/
identity.py). Exit codes and error lines: services/client/reporting.py. Subcommands live
next to what they drive; to add one, register it with ONE line at the bottom of this file.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Annotated

import typer

from services.bots.simulation.cli import simulate
from services.client import account, bots, dealer, history, play, tables, verify, videopoker
from services.client.identity import DEFAULT_STATE_DIR, PLAYER_ENV, Identity
from services.client.launcher import has_module, run_platform
from services.client.reporting import EXIT_USAGE, fail
from services.shared import auth
from services.shared.operator_keys import keys_dir, operator_credentials
from services.shared.settings import AUTH_KEY_ENV, PUBLIC_KEYS_ENV, SIGNING_KEY_ENV
from services.videopoker_analysis.cli import vp_app

app = typer.Typer(
    name="croupier",
    help=(
        "croupier: multiplayer card games over gRPC on an event-sourced Redis core.\n\n"
        "First time? `make run` in one terminal, then in another:\n\n"
        "croupier --as alice account deposit 1000\n\n"
        "croupier --as alice play        (the terminal UI: lobby, tables, bots)"
    ),
    no_args_is_help=True,
    add_completion=False,
)

StateDir = Annotated[
    Path, typer.Option(help="Where `run` keeps the generated signing key and Redis data.")
]


@app.callback()
def options(
    ctx: typer.Context,
    as_: Annotated[
        str,
        typer.Option(
            "--as",
            envvar=PLAYER_ENV,
            help="Act as this player (a token is signed with the development key).",
        ),
    ] = "",
    token: Annotated[
        str, typer.Option(envvar="CROUPIER_TOKEN", help="Act with this bearer token instead.")
    ] = "",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for each answer.", min=0.1)] = 10,
    state_dir: StateDir = DEFAULT_STATE_DIR,
) -> None:
    ctx.obj = Identity(player=as_, token=token, state_dir=state_dir, timeout_s=timeout)


@app.command()
def serve(
    name: Annotated[str, typer.Argument(help="Deployable: table, dealer, evaluator, ledger, ...")],
) -> None:
    """Run one service in the foreground (same as `python -m services.<name>`)."""
    module = f"services.{name}"
    if not name.isidentifier() or not has_module(f"{module}.__main__"):
        raise typer.BadParameter(f"no deployable named {name!r}", param_hint="NAME")
    runpy.run_module(module, run_name="__main__", alter_sys=True)


@app.command()
def token(
    subject: Annotated[str, typer.Option(help="Who the token names: player id, bot id, service.")],
    role: Annotated[auth.Role, typer.Option(help="What kind of caller it is.")] = auth.Role.PLAYER,
    ttl: Annotated[int, typer.Option(help="Lifetime in seconds (at least 1).")] = 3600,
    state_dir: StateDir = DEFAULT_STATE_DIR,
) -> None:
    """Print a bearer token signed with the operator's key (the one `run` keeps in
    <state>/keys, or CROUPIER_AUTH_SIGNING_KEY_FILE, or the development CROUPIER_AUTH_KEY).

    Example: croupier token --subject alice --role player --ttl 600
    """
    if ttl < 1:
        raise typer.BadParameter(
            f"{ttl} would issue a token that is already expired; give 1 or more seconds",
            param_hint="--ttl",
        )
    if not subject.strip():
        raise typer.BadParameter("name who the token is for", param_hint="--subject")
    try:
        found = operator_credentials(state_dir)
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)
    if found is None:
        fail(
            f"no operator key: start `croupier run` once (it keeps one in {keys_dir(state_dir)}), "
            f"run `croupier keys DIR` and set {SIGNING_KEY_ENV} and {PUBLIC_KEYS_ENV}, "
            f"or in development set {AUTH_KEY_ENV}",
            EXIT_USAGE,
        )
    creds, source = found
    if source != AUTH_KEY_ENV:
        typer.echo(f"(signed with {source})", err=True)
    try:
        typer.echo(auth.issue_token(creds, subject, role, ttl))
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)


@app.command()
def keys(
    directory: Annotated[Path, typer.Argument(help="Where to write the keys (made if missing).")],
) -> None:
    """Make an Ed25519 signing key per token issuer (operator, table, workers; mode 0600, an
    existing one is kept) and the public-keys file every service verifies with; give each
    deployable only its own key (docs/dealer.md, "Service identities")."""
    try:
        written = auth.write_keys(directory)
    except (OSError, ValueError) as exc:
        typer.echo(f"cannot write keys in {directory}: {exc}", err=True)
        raise typer.Exit(2) from exc
    for name, path in written.items():
        what = "public keys (every service)" if name == "public" else f"signing key of {name}"
        typer.echo(f"{path}  {what}")


@app.command()
def run(state_dir: StateDir = DEFAULT_STATE_DIR) -> None:
    """Start the whole platform: private Redis, every service, the worker. Ctrl-C stops all."""
    raise typer.Exit(run_platform(state_dir))


def main() -> None:
    app(prog_name="croupier")


# Subcommands contributed by other modules: one additive line each, below this comment.
app.add_typer(account.app)  # croupier account open/deposit/balance/history/cashout
app.add_typer(tables.app)  # croupier table create/list/show/close
app.command()(tables.join)  # croupier join TABLE
app.command()(tables.leave)  # croupier leave TABLE
app.command("sit-out")(tables.sit_out)  # croupier sit-out TABLE
app.command("sit-in")(tables.sit_in)  # croupier sit-in TABLE
app.command("top-up")(tables.top_up)  # croupier top-up TABLE AMOUNT
app.command()(tables.act)  # croupier act TABLE ACTION [AMOUNT]
app.command()(tables.view)  # croupier view TABLE
app.command()(tables.watch)  # croupier watch TABLE
app.command()(history.history)  # croupier history TABLE [HAND]: text, PHH or JSON
app.command()(verify.verify)  # croupier verify --table T --hand N, or a hand-history file
app.command()(play.play)  # croupier play: the terminal UI
app.add_typer(bots.app)  # croupier bots run TABLE: SDK bots from this terminal
app.command()(simulate)  # croupier simulate: bots against bots, bb/100 with 95% CI
app.add_typer(vp_app)  # croupier vp analyze / advise: video poker returns and holds
videopoker.register(vp_app)  # croupier vp open/deal/hold/hint/show/paytables: machines
app.add_typer(dealer.app)  # croupier dealer report/misdeal: a live-dealer table's console

if __name__ == "__main__":
    main()
