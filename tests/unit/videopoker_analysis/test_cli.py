"""`croupier vp`: the analysis and the advisor from the command line; bad input is a usage
error with a reason, never a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from services.client.cli import app

runner = CliRunner()


@pytest.mark.slow
def test_analyze_prints_the_return_and_every_final_hands_frequency() -> None:
    result = runner.invoke(app, ["vp", "analyze", "--paytable", "jacks-9-6"])
    assert result.exit_code == 0, result.output
    assert "return: 99.5439%" in result.output
    for label in ("Royal flush", "Two pair", "Jacks or better", "Nothing"):
        assert label in result.output
    assert "0.00002476" in result.output  # the royal's probability
    assert "computed in" in result.output


def test_advise_lists_the_best_hold_first() -> None:
    result = runner.invoke(app, ["vp", "advise", "Ah Kh Qh Jh 9c", "--coins", "5", "--top", "2"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "Ah Kh Qh Jh" in line]
    assert rows and "92.765957" in rows[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["vp", "analyze", "--paytable", "jacks-8-5"], "unknown pay table 'jacks-8-5'"),
        (["vp", "advise", "Ah Kh", "--coins", "5"], "a dealt hand has 5 cards, got 2"),
        (["vp", "advise", "Ah Kh Qh Jh 9c", "--coins", "7"], "coins must be 1 to 5, or 10"),
        (["vp", "advise", "Ah Kh Qh Jh Zz"], "'Zz' is not a card"),
    ],
)
def test_bad_input_is_a_usage_error_naming_the_problem(args: list[str], words: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert words in " ".join(result.output.split()) or words in result.output
    assert "Traceback" not in result.output
