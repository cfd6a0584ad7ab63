"""The results table `croupier simulate` prints."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from services.bots.simulation.engine_runner import SimulationReport


def render(report: SimulationReport, console: Console) -> None:
    spec = report.spec
    title = (
        f"{spec.game}, {spec.seats} seats, {report.hands} hands"
        f"{' (duplicate)' if spec.duplicate else ''}, {report.mode}, seed {spec.seed}"
    )
    table = Table(title=title)
    table.add_column("bot")
    table.add_column("hands", justify="right")
    table.add_column("net chips", justify="right")
    table.add_column("bb/100", justify="right")
    table.add_column("95% CI", justify="right")
    for result in sorted(report.results, key=lambda r: r.bb_per_100, reverse=True):
        table.add_row(
            result.bot,
            str(result.hands),
            f"{result.net_chips:+d}",
            f"{result.bb_per_100:+.1f}",
            f"[{result.low:+.1f}, {result.high:+.1f}]",
        )
    console.print(table)
    rate = report.hands / report.seconds if report.seconds else 0.0
    console.print(
        f"{report.decisions} decisions in {report.seconds:.1f} s ({rate:.1f} hands/s); "
        f"chips conserved: {'yes' if report.conserved else 'NO'}"
        + (f"; [red]{report.timed_out} decisions timed out[/red]" if report.timed_out else "")
    )
    for problem in report.illegal[:10]:
        console.print(f"[red]illegal action[/red] {problem}")
