"""`croupier vp`: exact video poker returns and the optimal-hold advisor, from the shell.

    croupier vp analyze --paytable jacks-9-6          # every deal, optimal play, 5 coins
    croupier vp analyze --paytable jacks-9-6 --split  # the Split Card feature, 10 coins
    croupier vp advise "Ah Kh Qh Jh 9c" --paytable jacks-9-6 --coins 5

numpy and the tables load only when a command runs, so `croupier --help` stays quick.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from services.games.videopoker.paytables import PAYTABLES, PayTable

vp_app = typer.Typer(
    name="vp",
    help="Video poker: exact returns under optimal play and the optimal-hold advisor.",
    no_args_is_help=True,
    add_completion=False,
)
# Wide enough for the tables when piped to a file or a log.
console = Console(width=None if sys.stdout.isatty() else 120)


def _paytable(name: str) -> PayTable:
    if name not in PAYTABLES:
        raise typer.BadParameter(f"unknown pay table {name!r}; use one of {', '.join(PAYTABLES)}")
    return PAYTABLES[name]


PaytableOption = Annotated[
    str, typer.Option("--paytable", "-p", help=f"Pay table: {', '.join(PAYTABLES)}.")
]


@contextmanager
def _progress() -> Iterator[Callable[[str, int], Callable[[int, int], None]]]:
    """A rich progress display; yields a factory of (description, total) -> callback."""
    with Progress(
        TextColumn("{task.description:<28}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:

        def stage(description: str, total: int) -> Callable[[int, int], None]:
            task = progress.add_task(description, total=total)
            return lambda done, total: progress.update(task, completed=done, total=total)

        yield stage


def _percent(value: float) -> str:
    return f"{value * 100:.4f}%"


@vp_app.command()
def analyze(
    paytable: PaytableOption = "jacks-9-6",
    split: Annotated[
        bool, typer.Option("--split", help="The Split Card feature: 10 coins a line.")
    ] = False,
) -> None:
    """The exact return under optimal play over all 2,598,960 deals, and how often each
    final hand comes (suit symmetry: 134,459 deal classes)."""
    table = _paytable(paytable)
    from services.videopoker_analysis import exact, split_exact, split_tables, tables

    started, cpu = time.perf_counter(), time.process_time()
    with _progress() as stage:
        built = stage("pay tables", 1)
        tables.tables(paytable, split)
        built(1, 1)
        if split:
            built = stage("split-card tables", 2)
            split_tables.split_tables(paytable)
            built(1, 2)
            tables.stub_sums(paytable)
            built(2, 2)
            dealt, _ = split_exact.dealt_total(paytable, stage("split card dealt", 39))
            undealt, _ = split_exact.undealt_total(paytable, stage("split card not dealt", 1))
            result = split_exact.combine(paytable, dealt, undealt)
        else:
            analysis = exact.analyze(paytable, stage("deal classes", 1))
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    if split:
        console.print(f"[bold]{table.title}, Split Card feature[/] (10 coins a line, paid as 5)")
        console.print(f"  return under optimal play: [bold]{_percent(float(result.return_))}[/]")
        console.print(f"  exact: {result.return_.numerator}/{result.return_.denominator}")
        console.print(
            f"  split card dealt ({result.in_deal}): {float(result.dealt_value):.6f} a coin "
            "at 5-coin pays"
        )
        console.print(
            f"  split card not dealt: {float(result.undealt_value):.6f} a coin at 5-coin pays"
        )
        # Holds do not depend on the chance (each hand is played on its own cards), so the
        # return is linear in it: 100% at (2 - undealt) / (dealt - undealt).
        even = (2 - result.undealt_value) / (result.dealt_value - result.undealt_value)
        console.print(
            f"  returns 100% when the split card is dealt {float(even) * 100:.2f}% of the time"
        )
    else:
        _print_analysis(table, analysis)
    console.print(f"computed in {seconds:.1f} s ({cpu_seconds:.1f} s of CPU)")


def _print_analysis(table: PayTable, analysis: object) -> None:
    from services.videopoker_analysis.exact import Analysis

    assert isinstance(analysis, Analysis)
    console.print(f"[bold]{table.title}[/]: optimal play, 5 coins a line")
    console.print(
        f"  return: [bold]{_percent(float(analysis.return_))}[/]  "
        f"(exact {analysis.return_.numerator}/{analysis.return_.denominator}; "
        f"{analysis.deals:,} deal classes)"
    )
    labels = {line.hand: (line.label, line.pays_at_max) for line in table.lines}
    grid = Table("final hand", "pays a coin", "probability", "1 in", "share of return")
    for hand, frequency in analysis.frequencies.items():
        label, pays = labels.get(hand, ("Nothing", 0))
        one_in = f"{1 / float(frequency):,.1f}" if frequency else "-"
        grid.add_row(
            label, str(pays), f"{float(frequency):.8f}", one_in, _percent(float(frequency * pays))
        )
    console.print(grid)


@vp_app.command()
def advise(
    cards: Annotated[
        str, typer.Argument(help='Five cards, e.g. "Ah Kh Qh Jh 9c"; "Kh|Qh" is a split card.')
    ],
    paytable: PaytableOption = "jacks-9-6",
    coins: Annotated[
        int, typer.Option(help="Coins a line: 1-5, or 10 for the Split Card feature.")
    ] = 5,
    top: Annotated[int, typer.Option(help="How many holds to list, best first.")] = 8,
) -> None:
    """The expected win of every hold of a dealt hand (exact), best first."""
    _paytable(paytable)
    from services.videopoker_analysis.advisor import AdviceError
    from services.videopoker_analysis.advisor import advise as advise_hand

    hand = cards.replace(",", " ").split()
    try:
        advice = advise_hand(hand, paytable, coins)
    except AdviceError as exc:
        raise typer.BadParameter(str(exc), param_hint="CARDS") from exc
    grid = Table("hold", "expected win a line", "per coin bet")
    for hold in advice.holds[:top]:
        kept = " ".join(hand[i] for i in hold.positions) or "(draw five)"
        grid.add_row(kept, f"{float(hold.expected_win):.6f}", f"{float(hold.per_coin(coins)):.6f}")
    console.print(grid)
