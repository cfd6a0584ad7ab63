"""Per-position commitments (docs/dealer.md 2.10): the positions root is fixed with the seed
commitment, each dealt card opens against it without the seed, and the seed still checks the
whole deck and the root."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.dealer.v1 import dealer_pb2, events_pb2
from services.client.cli import app as cli_app
from services.dealer.application import DealerApplication, register_events
from services.dealer.seed_cipher import SeedCipher
from services.games.cards import parse_cards, standard_deck
from services.shared.auth import Principal, Role
from services.shared.eventstore import EventRegistry, InMemoryEventStore
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, entropy_commitment
from services.shuffles.openings import open_dealt
from services.shuffles.positions import (
    audit_path,
    check_opening,
    merkle_root,
    mix_permutation,
    mixed_order,
    root_from_path,
    seeded_segment,
)
from services.shuffles.proof import card_proof_json
from services.shuffles.verification import verify
from tests.unit.dealer import reference

TABLE = Principal("table", Role.SERVICE)
SEED = bytes(range(32))
KEY = bytes(range(100, 132))
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
BOARD = dealer_pb2.DEAL_PURPOSE_BOARD
ALICE = b"alice's entropy, 16+ bytes"
BOB = b"bob's entropy, 16 or more"

# The vector of docs/dealer.md 2.10, rebuilt by the reference implementation below.
VECTOR_ID = "table-1.hand-1"
VECTOR_CONTRIBUTIONS = [("alice", bytes.fromhex("00112233445566778899aabbccddeeff"))]


def make_app(*, allow_test_decks: bool = False) -> DealerApplication:
    store = InMemoryEventStore(register_events(EventRegistry()))
    return DealerApplication(
        store, SeedCipher(KEY), allow_test_decks=allow_test_decks, new_seed=lambda: SEED
    )


def test_production_and_the_independent_reference_agree_byte_for_byte() -> None:
    rng = random.Random(7)
    for _ in range(40):
        seed = rng.randbytes(32)
        shuffle_id = f"t{rng.randrange(1000)}.hand-{rng.randrange(1, 99)}"
        contributions = [
            (f"p{i}", rng.randbytes(rng.randrange(16, 65))) for i in range(rng.randrange(0, 4))
        ]
        nonce = rng.randrange(0, 3)
        cards = rng.sample(reference.standard_cards(), rng.randrange(1, 53))
        ours = mixed_order(
            seed,
            shuffle_id,
            [Contribution(w, e) for w, e in contributions],
            nonce,
            parse_cards(cards),
        )
        assert [str(c) for c in ours] == reference.mixed_order(
            seed, shuffle_id, contributions, nonce, cards
        )
        segment = seeded_segment(seed, shuffle_id, nonce, parse_cards(cards))
        assert segment.root == reference.positions_root(seed, shuffle_id, nonce, cards)
        assert segment.salts[0] == reference.salt(seed, shuffle_id, nonce, 0)


def test_the_documented_vector() -> None:
    cards = reference.standard_cards()
    order = reference.mixed_order(SEED, VECTOR_ID, VECTOR_CONTRIBUTIONS, 0, cards)
    base = reference.order(reference.base_key(SEED, VECTOR_ID, 0), cards)
    mix = reference.mix(VECTOR_ID, VECTOR_CONTRIBUTIONS, 0, 52)
    assert mix[0] == 4
    salt0 = reference.salt(SEED, VECTOR_ID, 0, 0)
    salt0 = reference.salt(SEED, VECTOR_ID, 0, 0)
    sibling = hashlib.sha256(
        b"\0" + reference.leaf(VECTOR_ID, 0, 5, base[5], reference.salt(SEED, VECTOR_ID, 0, 5))
    ).digest()
    segment = seeded_segment(SEED, VECTOR_ID, 0, standard_deck())
    assert audit_path(segment.leaves, 4)[0] == sibling
    documented = (Path(__file__).parents[3] / "docs" / "dealer.md").read_text()
    block = "\n".join(
        [
            f"base_key(0)    = {reference.base_key(SEED, VECTOR_ID, 0).hex()}",
            f"base order     = {' '.join(base[:13])} ...",
            f"mix_key(0)     = {reference.mix_key(VECTOR_ID, VECTOR_CONTRIBUTIONS, 0).hex()}",
            f"mix            = {' '.join(str(m) for m in mix[:13])} ...",
            f"order          = {' '.join(order[:13])} ...",
            f"salt(0, 0)     = {reference.salt(SEED, VECTOR_ID, 0, 0).hex()}",
            f"leaf(0, 0)     = {reference.leaf(VECTOR_ID, 0, 0, base[0], salt0).hex()}",
            f"positions_root = {reference.positions_root(SEED, VECTOR_ID, 0, cards).hex()}",
            # the opening of the first card dealt: base position mix[0] = 4, whose nearest
            # sibling in the tree is leaf 5
            f"opening #0     = base position {mix[0]}, card {base[mix[0]]}, "
            f"salt {reference.salt(SEED, VECTOR_ID, 0, mix[0]).hex()}",
            f"path[0]        = {sibling.hex()}",
        ]
    )
    assert block in documented, block


@pytest.mark.parametrize("size", [*range(1, 40), 52, 104, 416])
def test_every_audit_path_leads_to_the_root(size: int) -> None:
    leaves = [bytes([i % 256, i // 256]) for i in range(size)]
    root = merkle_root(leaves)
    assert root == reference.mth(leaves)
    for index in range(size):
        assert root_from_path(leaves[index], index, size, audit_path(leaves, index)) == root


def _dealt(app: DealerApplication, sid: str) -> list[str]:
    app.create_shuffle(TABLE, sid, DeckSpec())
    for who, entropy in (("alice", ALICE), ("bob", BOB)):
        app.contribute(TABLE, sid, who, entropy_commitment(sid, who, entropy))
    app.seal(TABLE, sid)
    for who, entropy in (("alice", ALICE), ("bob", BOB)):
        app.reveal(TABLE, sid, who, entropy)
    dealt = list(app.deal(TABLE, sid, 4, HOLE).cards)
    flop = app.deal(TABLE, sid, 3, BOARD, burn=1)
    dealt += [*flop.burned, *flop.cards]
    dealt += app.deal(TABLE, sid, 3, BOARD).cards
    return dealt


def test_the_root_is_fixed_at_creation_and_openings_prove_cards_without_the_seed() -> None:
    app = make_app()
    created = app.create_shuffle(TABLE, "h1", DeckSpec()).state
    # Published with the seed commitment, before any entropy: the seed's base order alone.
    assert created.positions_root == reference.positions_root(
        SEED, "h1", 0, reference.standard_cards()
    )
    app2 = make_app()
    dealt = _dealt(app2, "h2")
    state, _ = app2.get("h2")
    opened = open_dealt(SEED, "h2", standard_deck(), state.contributions, state.steps())
    assert [o.card for o in opened.openings] == dealt
    assert opened.roots == (state.positions_root,)
    for opening in opened.openings:
        assert check_opening(opening, state.positions_root, state.contributions) is None
        # An opening holds its own card and salt and hashes of other leaves, nothing more.
        text = json.dumps([opening.card, opening.salt.hex(), [h.hex() for h in opening.path]])
        assert not [c for c in dealt if c != opening.card and f'"{c}"' in text]
        segment = seeded_segment(SEED, "h2", 0, standard_deck())
        assert [s for s in segment.salts if s == opening.salt] == [opening.salt]
    first = opened.openings[0]
    wrong_card = next(c for c in reference.standard_cards() if c != first.card)
    assert check_opening(replace(first, card=wrong_card), state.positions_root, state.contributions)
    assert check_opening(replace(first, salt=bytes(32)), state.positions_root, state.contributions)
    # Without bob's entropy the players' permutation puts another base position there.
    alone = (Contribution("alice", ALICE),)
    assert "base position" in (check_opening(first, state.positions_root, alone) or "")
    assert mix_permutation("h2", alone, 0, 52) != mix_permutation("h2", state.contributions, 0, 52)


def test_the_seed_checks_the_whole_deck_and_the_root() -> None:
    app = make_app()
    _dealt(app, "h1")
    app.close(TABLE, "h1")
    state, _ = app.get("h1")
    assert app.verify_closed("h1").ok
    args = (state.commitment, SEED, "h1", state.deck, state.contributions, state.steps())
    assert verify(*args, state.positions_root).cards_checked == 11
    assert not verify(*args).ok  # (the order is the mixed one, not section 2.3's)
    # A root that is not the seed's (other salts, another order) is caught by the auditor.
    other = seeded_segment(bytes(32), "h1", 0, standard_deck()).root
    result = verify(*args, other)
    assert not result.ok and result.mismatch and result.mismatch.kind == "positions_root"


def test_a_reshuffled_segment_records_its_root_and_its_cards_open_against_it() -> None:
    app = make_app()
    deck = DeckSpec(kind="cards", cards=parse_cards("As Kd 7h 2c Tc 9s Qh 3d"))
    app.create_shuffle(TABLE, "d1", deck)
    first = app.deal(TABLE, "d1", 6, HOLE).cards
    app.reshuffle(TABLE, "d1", parse_cards(first[:3]), needed=4)
    app.deal(TABLE, "d1", 4, dealer_pb2.DEAL_PURPOSE_DRAW)
    app.close(TABLE, "d1")
    state, _ = app.get("d1")
    assert app.verify_closed("d1").ok
    opened = open_dealt(SEED, "d1", deck.card_multiset(), (), state.steps())
    reshuffled = state.history[1]
    assert isinstance(reshuffled, events_pb2.DeckReshuffled)
    assert len(opened.roots) == 2 and opened.roots[1] == reshuffled.positions_root
    for opening in opened.openings:
        assert check_opening(opening, opened.roots[opening.nonce], ()) is None


def _proof(tmp_path: Path, tamper: bool = False) -> tuple[Path, str]:
    app = make_app()
    _dealt(app, "h1")
    state, _ = app.get("h1")
    opened = open_dealt(SEED, "h1", standard_deck(), state.contributions, state.steps())
    mine = [opened.openings[0], opened.openings[2], *opened.openings[5:8], *opened.openings[9:]]
    if tamper:
        mine[0] = replace(mine[0], card=mine[1].card)
    proof = card_proof_json(
        "h1",
        state.deck,
        state.commitment,
        state.positions_root,
        (),
        state.contributions,
        [(c.contributor, c.commitment, c.revealed) for c in state.commitments],
        [(o, "hole" if o.dealt_index < 4 else "board") for o in mine],
    )
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(proof))
    return path, state.positions_root.hex()


def test_croupier_verify_checks_a_card_proof_against_the_root_seen_before_the_hand(
    tmp_path: Path,
) -> None:
    path, root = _proof(tmp_path)
    args = ["verify", str(path), "--positions-root", root]
    result = CliRunner().invoke(
        cli_app, [*args, "--contributor", "alice", "--entropy", ALICE.hex()]
    )
    assert result.exit_code == 0, result.output
    assert "7 of 7 cards proven" in result.output and "mixed into the order" in result.output
    other = CliRunner().invoke(cli_app, ["verify", str(path), "--positions-root", "00" * 32])
    assert other.exit_code == 1 and "MISMATCH (positions_root)" in other.output
    tampered, _ = _proof(tmp_path, tamper=True)
    bad = CliRunner().invoke(cli_app, ["verify", str(tampered), "--positions-root", root])
    assert bad.exit_code == 1 and "MISMATCH" in bad.output and "6 of 7" in bad.output
