"""The cheaper per-position commitments (docs/dealer.md 2.10) compute exactly what the spec
says: one-pass salts and the DRBG's written-out HMAC are HMAC-SHA256, the bottom-up tree is
RFC 6962's, and a segment, base order or card proof answered from a memo is the one computed
afresh."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from dataclasses import replace

import pytest

from croupier.dealer.v1 import dealer_pb2
from services.games.cards import parse_cards, standard_deck
from services.shuffles import positions
from services.shuffles.decks import MAX_CARDS, DeckSpec, canonical_order
from services.shuffles.derivation import Contribution
from services.shuffles.openings import open_dealt
from services.shuffles.positions import (
    SEGMENT_MEMO_POSITIONS,
    audit_path,
    base_order,
    check_opening,
    forget_segments,
    merkle_root,
    mixed_order,
    salt,
    salts,
    seeded_segment,
)
from services.shuffles.proof import card_proof_json, check_card_proof, parse_card_proof
from services.table import card_proofs
from tests.unit.dealer import reference
from tests.unit.dealer.test_positions import SEED, TABLE, _dealt, make_app


@pytest.fixture(autouse=True)
def _empty_memos() -> None:
    forget_segments()
    card_proofs.forget_openings()


@pytest.mark.parametrize("seed_bytes", [1, 31, 32, 63, 64, 65, 200])
def test_one_pass_salts_are_the_specs_hmacs_for_any_key_length(seed_bytes: int) -> None:
    rng = random.Random(seed_bytes)
    seed = rng.randbytes(seed_bytes)
    got = salts(seed, "t9.hand-3", 2, 60)
    assert got == tuple(salt(seed, "t9.hand-3", 2, b) for b in range(60))
    assert got[59] == reference.salt(seed, "t9.hand-3", 2, 59)
    assert (
        got[0] == hmac.new(seed, got[0][:0] + _salt_message("t9.hand-3", 2, 0), "sha256").digest()
    )


def _salt_message(shuffle_id: str, nonce: int, b: int) -> bytes:
    tag = b"croupier/dealer/v2/position-salt"
    return (
        reference.lp(tag)
        + reference.lp(shuffle_id.encode())
        + nonce.to_bytes(4, "big")
        + b.to_bytes(4, "big")
    )


def _rfc6962_path(leaves: list[bytes], m: int) -> list[bytes]:
    """RFC 6962 2.1.1 PATH(m, D[n]), as the RFC writes it (recursive)."""
    n = len(leaves)
    if n == 1:
        return []
    k = 1
    while k * 2 < n:
        k *= 2
    if m < k:
        return [*_rfc6962_path(leaves[:k], m), reference.mth(leaves[k:])]
    return [*_rfc6962_path(leaves[k:], m - k), reference.mth(leaves[:k])]


@pytest.mark.parametrize("size", [*range(1, 34), 52, 63, 64, 65, 104, 416])
def test_the_bottom_up_tree_is_rfc_6962s(size: int) -> None:
    leaves = [hashlib.sha256(i.to_bytes(2, "big")).digest()[: 1 + i % 40] for i in range(size)]
    assert merkle_root(leaves) == reference.mth(leaves)
    for index in range(size):
        assert list(audit_path(leaves, index)) == _rfc6962_path(leaves, index)


def test_a_segment_from_the_memo_is_the_one_computed_afresh() -> None:
    rng = random.Random(11)
    for _ in range(30):
        seed = rng.randbytes(32)
        shuffle_id = f"t{rng.randrange(100)}.hand-{rng.randrange(1, 50)}"
        nonce = rng.randrange(3)
        cards = parse_cards(rng.sample(reference.standard_cards(), rng.randrange(1, 53)))
        forget_segments()
        fresh = seeded_segment(seed, shuffle_id, nonce, cards)
        fresh_base = base_order(seed, shuffle_id, nonce, cards)  # (now from the memo)
        forget_segments()
        uncached_base = base_order(seed, shuffle_id, nonce, cards)
        # the memo answers whatever order the same cards come in
        again = seeded_segment(seed, shuffle_id, nonce, list(reversed(cards)))
        assert again == seeded_segment(seed, shuffle_id, nonce, cards)
        assert fresh == again and fresh_base == uncached_base == fresh.base
        assert fresh.root == reference.positions_root(
            seed, shuffle_id, nonce, [str(c) for c in cards]
        )


def test_the_memo_never_answers_for_another_seed_id_nonce_or_card_set() -> None:
    cards = standard_deck()
    first = seeded_segment(SEED, "h1", 0, cards)
    others = [
        seeded_segment(bytes(32), "h1", 0, cards),
        seeded_segment(SEED, "h2", 0, cards),
        seeded_segment(SEED, "h1", 1, cards),
        seeded_segment(SEED, "h1", 0, cards[1:]),
    ]
    assert len({first.root, *(o.root for o in others)}) == 5
    for other in others:
        assert other.root != first.root
    expected = [
        reference.positions_root(bytes(32), "h1", 0, reference.standard_cards()),
        reference.positions_root(SEED, "h2", 0, reference.standard_cards()),
        reference.positions_root(SEED, "h1", 1, reference.standard_cards()),
        reference.positions_root(SEED, "h1", 0, [str(c) for c in cards[1:]]),
    ]
    assert [o.root for o in others] == expected
    # the order a deal takes from the memo is the players' mix of the seed's base order
    contributions = [Contribution("alice", b"0123456789abcdef")]
    ordered = mixed_order(SEED, "h1", contributions, 0, cards)
    assert [str(c) for c in ordered] == reference.mixed_order(
        SEED, "h1", [("alice", b"0123456789abcdef")], 0, reference.standard_cards()
    )


def test_the_memo_holds_at_most_its_positions() -> None:
    cards = canonical_order(parse_cards("As Kd 7h"))
    held = SEGMENT_MEMO_POSITIONS // 3
    for i in range(held + 5):
        seeded_segment(SEED, f"h{i}", 0, cards)
    assert len(positions._SEGMENTS) == held
    # the oldest went first; the newest is still answered
    assert positions._SEGMENTS.get(positions._memo_key(SEED, "h4", 0, cards)) is None
    newest = positions._memo_key(SEED, f"h{held + 4}", 0, cards)
    assert positions._SEGMENTS.get(newest) == seeded_segment(SEED, f"h{held + 4}", 0, cards)
    # a bigger segment pushes out as many small ones as its positions need
    seeded_segment(SEED, "shoe", 0, DeckSpec(copies=8).card_multiset())
    evicted = -(-(3 * held + 416 - SEGMENT_MEMO_POSITIONS) // 3)  # (ceiling division)
    assert len(positions._SEGMENTS) == held + 1 - evicted


def _reveal(sid: str) -> str:
    app = make_app()
    _dealt(app, sid)
    app.close(TABLE, sid)
    state, _ = app.get(sid)
    from services.dealer.views import shuffle_info
    from services.table.adapters import reveal_json

    return reveal_json(dealer_pb2.CloseResponse(shuffle=shuffle_info(state, 0)))


def test_a_card_proof_from_the_memo_is_the_one_made_afresh() -> None:
    reveal = _reveal("h1")
    cards = json.loads(reveal)["steps"][0]["deal"]["cards"]
    viewers = [frozenset(cards[:2]), frozenset(cards[2:4]), frozenset()]
    first = [card_proofs.card_proof(reveal, seen) for seen in viewers]
    again = [card_proofs.card_proof(reveal, seen) for seen in viewers]
    forget_segments()
    card_proofs.forget_openings()
    fresh = [card_proofs.card_proof(reveal, seen) for seen in viewers]
    assert first == again == fresh
    assert len(set(first)) == 3  # each viewer's own cut
    for proof in first:
        assert check_card_proof(parse_card_proof(json.loads(proof))).ok
    mine = json.loads(first[0])["openings"]
    assert sorted(o["card"] for o in mine if o["purpose"] == "hole") == sorted(cards[:2])


def test_checking_a_proof_with_one_permutation_per_segment_judges_each_card_alike() -> None:
    app = make_app()
    _dealt(app, "h1")
    state, _ = app.get("h1")
    opened = open_dealt(SEED, "h1", standard_deck(), state.contributions, state.steps())
    tampered = [
        opened.openings[0],
        replace(opened.openings[1], card=opened.openings[0].card),
        replace(opened.openings[2], base_position=(opened.openings[2].base_position + 1) % 52),
        *opened.openings[3:],
    ]
    proof = parse_card_proof(
        card_proof_json(
            "h1",
            DeckSpec(),
            state.commitment,
            state.positions_root,
            (),
            state.contributions,
            [],
            [(o, "hole") for o in tampered],
        )
    )
    check = check_card_proof(proof)
    one_by_one = [check_opening(o, state.positions_root, state.contributions) for o in tampered]
    assert [v.problem for v in check.verdicts] == one_by_one
    assert [p is None for p in one_by_one] == [True, False, False, *[True] * len(tampered[3:])]


def test_an_opening_claiming_more_positions_than_a_deck_holds_is_refused_before_any_work() -> None:
    app = make_app()
    _dealt(app, "h1")
    state, _ = app.get("h1")
    opening = open_dealt(SEED, "h1", standard_deck(), state.contributions, state.steps())
    huge = replace(opening.openings[0], size=MAX_CARDS + 1)
    problem = check_opening(huge, state.positions_root, state.contributions)
    assert problem == f"a segment has 1..{MAX_CARDS} positions, not {MAX_CARDS + 1}"


def test_the_dealer_derives_a_hands_base_order_once(monkeypatch: pytest.MonkeyPatch) -> None:
    derived: list[tuple[str, int]] = []
    plain_base_key = positions.base_key

    def counting(seed: bytes, shuffle_id: str, nonce: int) -> bytes:
        derived.append((shuffle_id, nonce))
        return plain_base_key(seed, shuffle_id, nonce)

    monkeypatch.setattr(positions, "base_key", counting)
    app = make_app()
    dealt = _dealt(app, "h1")  # CreateShuffle (the root), then the deals (the order)
    app.close(TABLE, "h1")
    assert derived == [("h1", 0)]
    assert app.verify_closed("h1").ok  # (the auditor's root and order: from the memo too)
    assert derived == [("h1", 0)]
    state, _ = app.get("h1")
    order = reference.mixed_order(
        SEED,
        "h1",
        [(c.contributor, c.entropy) for c in state.contributions],
        0,
        reference.standard_cards(),
    )
    assert dealt == order[: len(dealt)]


@pytest.mark.parametrize("key_bytes", [0, 1, 32, 63, 64, 65, 130])
def test_the_drbgs_written_out_hmac_is_hmac_sha256(key_bytes: int) -> None:
    from services.shuffles.drbg import _hmac

    rng = random.Random(key_bytes)
    for data_bytes in (0, 1, 33, 55, 56, 64, 65, 300):
        key, data = rng.randbytes(key_bytes), rng.randbytes(data_bytes)
        assert _hmac(key, data) == hmac.new(key, data, "sha256").digest()
