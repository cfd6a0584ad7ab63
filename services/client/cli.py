"""The `croupier` command line (console script; `python -m services.client` too).

Subcommands live next to what they drive. To add one, define a function (or a Typer app) in
your own module and register it with ONE line at the bottom of this file, e.g.

    app.command()(verify)                       # from services.dealer.verify_cli import verify
    app.add_typer(history_app, name="history")  # from services.table.history_cli import ...
"""

from __future__ import annotations

import os
import runpy
from pathlib import Path
from typing import Annotated

import typer

from services.bots.simulation.cli import simulate
from services.client.launcher import has_module, run_platform
from services.dealer.verify_cli import verify
from services.shared import auth
from services.shared.settings import AUTH_KEY_ENV
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
    """Print a development bearer token signed with CROUPIER_AUTH_KEY (or `run`'s key)."""
    key = os.environ.get(AUTH_KEY_ENV, "").strip()
    key_file = state_dir / "auth-key"
    if not key and key_file.exists():
        key = key_file.read_text().strip()
        typer.echo(f"(signed with the key `croupier run` keeps in {key_file})", err=True)
    if not key:
        typer.echo(f"set {AUTH_KEY_ENV} (or start `croupier run` once to generate one)", err=True)
        raise typer.Exit(2)
    typer.echo(auth.issue_token(key, subject, role, ttl))


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
