"""docs/dealer.md 4.1 prints the committed vectors a verifier needs beyond the worked example
(a reshuffle segment, a two-deck multiset, the rejection path) byte for byte: this test
rebuilds that block from vectors.json with the independent reference implementation and
requires the document to contain it exactly (run it with -s to print the block)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.unit.dealer import reference

ROOT = Path(__file__).resolve().parents[3]
VECTORS: list[dict[str, Any]] = json.loads(Path(__file__).with_name("vectors.json").read_text())


def _cards(vector: dict[str, Any]) -> list[str]:
    deck = vector["deck"]
    if deck["kind"] == "standard":
        return reference.standard_cards(deck.get("copies", 1))
    return list(deck["cards"])


def _contributions(vector: dict[str, Any]) -> list[tuple[str, bytes]]:
    return [(c["contributor"], bytes.fromhex(c["entropy"])) for c in vector["contributions"]]


def _hex_lines(data: bytes, width: int = 32) -> list[str]:
    return ["  " + data[i : i + width].hex() for i in range(0, len(data), width)]


def _rows(cards: list[str], per_row: int = 26) -> list[str]:
    return ["  " + " ".join(cards[i : i + per_row]) for i in range(0, len(cards), per_row)]


def vector_block(vector: dict[str, Any]) -> list[str]:
    seed = bytes.fromhex(vector["seed"])
    contributions = _contributions(vector)
    key = reference.key(seed, vector["shuffle_id"], contributions, vector["nonce"])
    stream = reference.stream(key)
    first = bytes(next(stream) for _ in range(32))
    order = reference.order(key, _cards(vector))
    assert " ".join(order).startswith(vector["order"])
    return [
        f"# {vector['name']}",
        f"seed          = {vector['seed']}",
        f'shuffle_id    = "{vector["shuffle_id"]}"',
        f"deck          = {json.dumps(vector['deck'])}",
        "contributions = " + json.dumps([[who, entropy.hex()] for who, entropy in contributions]),
        f"nonce         = {vector['nonce']}",
        f"key({vector['nonce']})        = {key.hex()}",
        "stream, first 32 bytes:",
        *_hex_lines(first),
        "order:",
        *_rows(order),
    ]


def rejection_block(vector: dict[str, Any]) -> list[str]:
    """Fisher-Yates on `vector` up to and including its first rejected byte (docs 2.5)."""
    seed = bytes.fromhex(vector["seed"])
    key = reference.key(seed, vector["shuffle_id"], _contributions(vector), vector["nonce"])
    deck = sorted(_cards(vector), key=reference.card_index)
    stream = reference.stream(key)
    lines = [f"# the rejection path, in vector {vector['name']!r}"]
    used = 0
    for i in range(len(deck) - 1):
        n = len(deck) - i
        limit = 256 // n * n  # w = 1 byte for n <= 256
        rejected = []
        while (x := next(stream)) >= limit:
            rejected.append(x)
        j = i + x % n
        step = f"i={i} n={n} limit {limit}: "
        step += "".join(f"byte {r:#04x}={r} >= {limit}, rejected; " for r in rejected)
        step += f"byte {x:#04x}={x} -> j = {i} + {x} mod {n} = {j}"
        lines.append(step)
        used += 1 + len(rejected)
        deck[i], deck[j] = deck[j], deck[i]
        if rejected:
            lines.append(f"({used} bytes read for {i + 1} draws so far)")
            return lines
    raise AssertionError("no rejection in this vector")


def doc_block() -> str:
    lines = ["```"]
    lines += [*vector_block(VECTORS[2]), "", *vector_block(VECTORS[3]), ""]
    lines += rejection_block(VECTORS[0])
    lines.append("```")
    return "\n".join(lines)


def test_docs_dealer_md_prints_the_vectors_exactly() -> None:
    block = doc_block()
    print(block)
    assert block in (ROOT / "docs" / "dealer.md").read_text(), "update docs/dealer.md 4.1"
