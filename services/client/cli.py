"""The `croupier` command line (console script; `python -m services.client` too).

Subcommands live next to what they drive. To add one, define a function (or a Typer app) in
your own module and register it with ONE line at the bottom of this file, e.g.

    app.command()(verify)                       # from services.dealer.verify_cli import verify
    app.add_typer(history_app, name="history")  # from services.table.history_cli import ...
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Annotated

import typer

from services.bots.simulation.cli import simulate
from services.client.launcher import has_module, run_platform
from services.dealer.verify_cli import verify
from services.shared import auth
from services.shared.operator_keys import keys_dir, operator_credentials
from services.shared.settings import AUTH_KEY_ENV, PUBLIC_KEYS_ENV, SIGNING_KEY_ENV
from services.table.history_cli import history
from services.videopoker_analysis.cli import vp_app

app = typer.Typer(
    name="croupier",
    help="croupier: multiplayer card games over gRPC on an event-sourced Redis core.",
    no_args_is_help=True,
    add_completion=False,
)

DEFAULT_STATE_DIR = Path(".run")
StateDir = Annotated[
    Path, typer.Option(help="Where `run` keeps the generated signing key and Redis data.")
]


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
    ttl: Annotated[int, typer.Option(help="Lifetime in seconds.")] = 3600,
    state_dir: StateDir = DEFAULT_STATE_DIR,
) -> None:
    """Print a bearer token signed with the operator's key (the one `run` keeps in
    <state>/keys, or CROUPIER_AUTH_SIGNING_KEY_FILE, or the development CROUPIER_AUTH_KEY)."""
    try:
        found = operator_credentials(state_dir)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    if found is None:
        typer.echo(
            f"no operator key: start `croupier run` once (it keeps one in {keys_dir(state_dir)}), "
            f"run `croupier keys DIR` and set {SIGNING_KEY_ENV} and {PUBLIC_KEYS_ENV}, "
            f"or in development set {AUTH_KEY_ENV}",
            err=True,
        )
        raise typer.Exit(2)
    creds, source = found
    if source != AUTH_KEY_ENV:
        typer.echo(f"(signed with {source})", err=True)
    try:
        typer.echo(auth.issue_token(creds, subject, role, ttl))
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc


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


# Subcommands contributed by other modules: one additive line each, below this comment.
app.command()(verify)  # croupier verify FILE: offline check of a dealer hand history
app.command()(simulate)  # croupier simulate: bots against bots, bb/100 with 95% CI
app.command()(history)  # croupier history TABLE [HAND]: a finished hand as text and PHH


def main() -> None:
    app(prog_name="croupier")


if __name__ == "__main__":
    main()
app.add_typer(vp_app)  # croupier vp analyze / advise: video poker returns and holds
