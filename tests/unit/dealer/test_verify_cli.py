"""`croupier verify FILE` checks a hand history offline and says why it fails."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.client.cli import app
from services.dealer.history import HandHistoryError, parse_hand_history
from tests.unit.dealer import reference

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "dealer-hand-history.example.json"


def run(tmp_path: Path, document: str | dict[str, Any]) -> tuple[int, str]:
    path = tmp_path / "hand.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    result = CliRunner().invoke(app, ["verify", str(path)])
    return result.exit_code, result.output


def example() -> dict[str, Any]:
    # A JSON document: the tests edit it freely (bad fields included), so values stay Any.
    doc: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return doc


def test_the_documented_example_matches_the_independent_reference() -> None:
    doc = example()
    seed = bytes.fromhex(doc["server_seed"])
    contributions = [(c["contributor"], bytes.fromhex(c["entropy"])) for c in doc["contributions"]]
    key = reference.key(seed, doc["shuffle_id"], contributions, 0)
    dealt = [card for step in doc["steps"] for card in step["deal"]]
    assert reference.order(key, reference.standard_cards())[: len(dealt)] == dealt
    assert reference.commitment_hex(doc["shuffle_id"], seed) == doc["commitment"]


def test_an_honest_hand_history_verifies(tmp_path: Path) -> None:
    code, output = run(tmp_path, example())
    assert code == 0 and "OK: all 14 dealt cards (9 deals)" in output


def test_a_flipped_seed_bit_fails_at_the_commitment(tmp_path: Path) -> None:
    doc = example()
    seed = bytearray.fromhex(doc["server_seed"])
    seed[5] ^= 0x10
    doc["server_seed"] = seed.hex()
    code, output = run(tmp_path, doc)
    assert code == 1 and "MISMATCH (commitment)" in output


def test_swapped_dealt_cards_fail_naming_the_position(tmp_path: Path) -> None:
    doc = example()
    flop = doc["steps"][4]["deal"]
    flop[0], flop[2] = flop[2], flop[0]
    code, output = run(tmp_path, doc)
    assert code == 1 and "dealt card #7" in output


def test_a_contribution_added_after_the_fact_fails(tmp_path: Path) -> None:
    doc = example()
    doc["contributions"].append({"contributor": "mallory", "entropy": "ff"})
    code, output = run(tmp_path, doc)
    assert code == 1 and "MISMATCH (card)" in output


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d.pop("server_seed"), "server_seed"),
        (lambda d: d.update(format="v0"), "format"),
        (lambda d: d["steps"].append({"deal": ["Zz"]}), "Zz"),
        (lambda d: d.update(deck={"kind": "cards", "cards": ["As", "As"]}), "duplicate card As"),
    ],
)
def test_a_malformed_file_exits_2_naming_the_problem(
    tmp_path: Path, change: Callable[[dict[str, Any]], object], named: str
) -> None:
    doc = example()
    change(doc)
    code, output = run(tmp_path, doc)
    assert code == 2 and named in output


def test_a_file_that_is_not_json_exits_2(tmp_path: Path) -> None:
    assert run(tmp_path, "{not json")[0] == 2


def test_parse_rejects_non_objects() -> None:
    with pytest.raises(HandHistoryError):
        parse_hand_history([])


def test_an_open_shuffles_info_is_refused_as_unverifiable(tmp_path: Path) -> None:
    info = {"shuffle_id": "h1", "commitment": "AAAA", "revealed_seed": ""}
    code, output = run(tmp_path, info)
    assert code == 2 and "not closed" in output
