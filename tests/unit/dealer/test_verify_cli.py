"""`croupier verify FILE` checks a hand history offline and says why it fails."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.client.cli import app
from services.shuffles.history import HandHistoryError, parse_hand_history
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
    assert code == 0 and "OK: all 14 dealt cards (7 deals)" in output


def test_a_flipped_seed_bit_fails_at_the_commitment(tmp_path: Path) -> None:
    doc = example()
    seed = bytearray.fromhex(doc["server_seed"])
    seed[5] ^= 0x10
    doc["server_seed"] = seed.hex()
    code, output = run(tmp_path, doc)
    assert code == 1 and "MISMATCH (commitment)" in output


def test_swapped_dealt_cards_fail_naming_the_position(tmp_path: Path) -> None:
    doc = example()
    flop = doc["steps"][2]["deal"]
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


def test_the_example_files_are_what_the_generator_writes() -> None:
    from tools import gen_hand_history_example

    assert gen_hand_history_example.main(["--check"]) == 0


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["verify", *args])
    return result.exit_code, result.output


def test_the_example_and_alices_history_check_every_card_she_saw() -> None:
    code, output = invoke(str(EXAMPLE), "--history", str(EXAMPLE.with_suffix(".phh")))
    assert code == 0, output
    assert "received: 7 of 7 cards match their positions (4 hidden in this history)" in output
    assert "entropy from: alice, bob" in output
    assert "WARNING: 1 commitment(s) withheld" in output and "carol" in output


def info_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The example as the dealer's ShuffleInfo in standard protobuf JSON (camelCase, bytes
    base64), the way Close answers over JSON transcoding."""
    import base64

    def b64(hex_text: str) -> str:
        return base64.b64encode(bytes.fromhex(hex_text)).decode()

    return {
        "shuffleId": doc["shuffle_id"],
        "deck": {"kind": "DECK_KIND_STANDARD", "copies": 1},
        "commitment": b64(doc["commitment"]),
        "status": "SHUFFLE_STATUS_CLOSED",
        "revealedSeed": b64(doc["server_seed"]),
        "contributions": [
            {"contributor": c["contributor"], "entropy": b64(c["entropy"])}
            for c in doc["contributions"]
        ],
        "steps": [
            {"deal": {"cards": s["deal"], "purpose": "DEAL_PURPOSE_" + s["purpose"].upper()}}
            for s in doc["steps"]
        ],
    }


def test_standard_protobuf_json_and_the_tables_shuffle_revealed_record_verify(
    tmp_path: Path,
) -> None:
    info = info_of(example())
    assert run(tmp_path, info)[0] == 0
    revealed = {"hand": "7", "shuffleId": info["shuffleId"], "revealJson": json.dumps(info)}
    code, output = run(tmp_path, revealed)
    assert code == 0 and "OK: all 14 dealt cards" in output, output
    event = {"version": "12", "shuffleRevealed": revealed}  # a TableEvent holding it
    assert run(tmp_path, event)[0] == 0
    assert run(tmp_path, {"revealJson": "{not json"})[0] == 2


def test_a_commitment_other_than_the_one_shown_fails(tmp_path: Path) -> None:
    doc = example()
    assert invoke(str(EXAMPLE), "--commitment", doc["commitment"])[0] == 0
    code, output = invoke(str(EXAMPLE), "--commitment", "ab" * 32)
    assert code == 1 and "MISMATCH (commitment)" in output
    assert invoke(str(EXAMPLE), "--commitment", "not hex")[0] == 2


def test_what_a_fair_deal_would_not_contain_is_a_warning_and_fails_strict(tmp_path: Path) -> None:
    doc = example()
    doc["contributions"] = []
    doc["commitments"] = []
    doc["steps"].insert(0, {"reshuffle": []})
    seed = bytes.fromhex(doc["server_seed"])
    # The same cards again from segment 1, which the reshuffle started.
    key = reference.key(seed, doc["shuffle_id"], [], 1)
    dealt = iter(reference.order(key, reference.standard_cards()))
    for step in doc["steps"][1:]:
        step["deal"] = [next(dealt) for _ in step["deal"]]
    del doc["steps"][2]["positioned"]  # a deal that did not name its place in the shuffle
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(doc))
    code, output = invoke(str(path))
    assert code == 0, output
    assert "WARNING: no player entropy" in output
    assert "WARNING: step 0: a reshuffle before any card was dealt" in output
    assert "WARNING: step 0: a reshuffle that returned no cards" in output
    assert "WARNING: 1 deal(s) did not name their place in the shuffle (steps 2)" in output
    assert invoke(str(path), "--strict")[0] == 1


def test_a_shuffle_id_outside_the_one_rule_is_refused(tmp_path: Path) -> None:
    doc = example()
    doc["shuffle_id"] = "x" * 129
    code, output = run(tmp_path, doc)
    assert code == 2 and "'shuffle_id'" in output


def test_a_contributor_checks_their_entropy_is_in_the_deck() -> None:
    alice = example()["contributions"][0]
    code, output = invoke(str(EXAMPLE), "--contributor", "alice", "--entropy", alice["entropy"])
    assert code == 0 and "alice: committed and revealed, the entropy you gave" in output
    code, output = invoke(str(EXAMPLE), "--contributor", "alice", "--entropy", "00" * 16)
    assert code == 1 and "alice: MISMATCH" in output
    code, output = invoke(str(EXAMPLE), "--contributor", "carol")
    assert code == 1 and "carol: committed but WITHHELD" in output
    code, output = invoke(str(EXAMPLE), "--contributor", "mallory")
    assert code == 1 and "mallory: NOT IN THIS RECORD" in output


def test_the_reveal_a_watcher_receives_checks_the_cards_of_a_history(tmp_path: Path) -> None:
    import base64

    doc = example()
    public = {
        "shuffle_id": doc["shuffle_id"],
        "commitment_hex": doc["commitment"],
        "revealed_seed_hex": doc["server_seed"],
        "contributions": [
            {
                "contributor": c["contributor"],
                "entropy": base64.b64encode(bytes.fromhex(c["entropy"])).decode(),
            }
            for c in doc["contributions"]
        ],
    }
    path = tmp_path / "watched.json"
    path.write_text(json.dumps({"shuffleRevealed": {"revealJson": json.dumps(public)}}))
    code, output = invoke(str(path), "--history", str(EXAMPLE.with_suffix(".phh")))
    assert code == 0, output
    assert "the revealed seed matches the commitment" in output
    assert "received: 7 of 7 cards match their positions" in output
    public["contributions"] = []  # another order: alice's cards are not where she got them
    path.write_text(json.dumps(public))
    code, output = invoke(str(path), "--history", str(EXAMPLE.with_suffix(".phh")))
    assert code == 1 and "MISMATCH: the committed order has" in output
