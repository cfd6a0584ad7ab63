"""`croupier simulate`: bots against bots, with a progress bar and a results table."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import grpc
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from services.bots.simulation.engine_runner import SimulationSpec, run_engine_only
from services.bots.simulation.presets import PRESETS
from services.bots.simulation.report import render


def simulate(
    game: Annotated[str, typer.Option(help=f"One of: {', '.join(PRESETS)}.")] = "nlhe",
    hands: Annotated[int, typer.Option(help="Hands to play in total.")] = 1000,
    seats: Annotated[int, typer.Option(help="Seats at the table.")] = 6,
    bots: Annotated[
        str, typer.Option(help="Comma-separated policies, repeated round the table.")
    ] = "equity,tight,random",
    engine_only: Annotated[
        bool,
        typer.Option(
            "--engine-only/--full-stack",
            help="Pure engine in this process, or real services (table, workers) over gRPC.",
        ),
    ] = True,
    duplicate: Annotated[
        bool, typer.Option(help="Replay every deal with the bots rotated round the table.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Seeds the decks and the bots.")] = 1,
    difficulty: Annotated[float, typer.Option(help="0..1: how hard the equity bot thinks.")] = 0.5,
) -> None:
    """Run bots against each other and report bb/100 with 95% confidence intervals."""
    try:
        spec = SimulationSpec(
            game=game,
            hands=hands,
            seats=seats,
            bots=tuple(b.strip() for b in bots.split(",") if b.strip()),
            duplicate=duplicate,
            seed=seed,
            difficulty=difficulty,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    console = Console()
    if not engine_only:
        _full_stack(spec, console, hands)
        return
    from services.bots.engine_ranker import EvaluatorHandRanker
    from services.bots.ranker import default_ranker

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    ) as bar:
        task = bar.add_task(f"{game} hands", total=hands)
        report = run_engine_only(
            spec,
            default_ranker(),
            EvaluatorHandRanker(),
            progress=lambda n: bar.advance(task, n),
        )
    render(report, console)
    if report.failed:
        raise typer.Exit(1)


def _full_stack(spec: SimulationSpec, console: Console, hands: int) -> None:
    """Against the running platform (`croupier run`): targets and key from the environment."""
    from services.bots.simulation.full_stack import Platform, run_full_stack
    from services.shared.operator_keys import operator_credentials
    from services.shared.settings import DEFAULT_PORTS

    try:
        found = operator_credentials(Path(".run"))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    if found is None:
        raise typer.BadParameter(
            "--full-stack needs the operator's key (a running `croupier run`, or "
            "CROUPIER_AUTH_SIGNING_KEY_FILE, or CROUPIER_AUTH_KEY in development)"
        )
    key = found[0]
    platform = Platform(
        table_target=os.environ.get("CROUPIER_TABLE_TARGET", f"127.0.0.1:{DEFAULT_PORTS['table']}"),
        ledger_target=os.environ.get(
            "CROUPIER_LEDGER_TARGET", f"127.0.0.1:{DEFAULT_PORTS['ledger']}"
        ),
        auth_key=key,
    )
    with _bar(console) as bar:
        task = bar.add_task(f"{spec.game} hands (full stack)", total=hands)
        try:
            report = run_full_stack(spec, platform, progress=lambda n: bar.advance(task, n))
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
        except grpc.RpcError as exc:
            # The platform is down (or refused us): one line, never a traceback.
            code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNAVAILABLE
            details = (exc.details() or "") if isinstance(exc, grpc.Call) else str(exc)
            bar.stop()
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                typer.secho(
                    f"croupier: the platform at {platform.table_target} is not answering "
                    f"({code.name}); is it running? start it with `make run`",
                    err=True,
                    fg=typer.colors.RED,
                )
                raise typer.Exit(3) from None
            typer.secho(f"croupier: {details} ({code.name})", err=True, fg=typer.colors.RED)
            raise typer.Exit(1) from None
    render(report, console)
    if report.failed:
        raise typer.Exit(1)


def _bar(console: Console) -> Progress:
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    )
