"""Reference vectors: production code, the committed file and an independent re-implementation."""

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from services.games.cards import format_cards, standard_deck
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, commitment, derive_order, shuffle_key
from services.shuffles.drbg import HmacDrbg
from tests.unit.dealer import reference
from tests.unit.dealer.make_vectors import Vector

VECTORS: list[Vector] = json.loads(Path(__file__).with_name("vectors.json").read_text())


def _inputs(vector: Vector) -> tuple[bytes, list[tuple[str, bytes]], list[str]]:
    seed = bytes.fromhex(vector["seed"])
    contributions = [
        (c["contributor"], bytes.fromhex(c["entropy"])) for c in vector["contributions"]
    ]
    deck = vector["deck"]
    cards = (
        deck["cards"] if deck["kind"] != "standard" else reference.standard_cards(deck["copies"])
    )
    return seed, contributions, cards


def test_hmac_drbg_matches_the_nist_cavp_known_answer() -> None:
    # HMAC_DRBG.rsp, [SHA-256] no reseed, no personalization or additional input, COUNT = 0:
    # instantiate, generate 1024 bits, generate 1024 bits; the second output is ReturnedBits.
    drbg = HmacDrbg(
        bytes.fromhex("ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488"),
        bytes.fromhex("659ba96c601dc69fc902940805ec0ca8"),
    )
    drbg.generate(128)
    assert drbg.generate(128).hex() == (
        "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89"
        "d54fbb978a15b5c443c9ec21036d2460b6f73ebad0dc2aba6e624abf07745bc1"
        "07694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668"
        "961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8"
    )


def test_committed_vectors_match_the_production_derivation() -> None:
    assert len(VECTORS) >= 4
    for vector in VECTORS:
        seed = bytes.fromhex(vector["seed"])
        deck = DeckSpec.parse(
            vector["deck"]["kind"], vector["deck"].get("cards", ()), vector["deck"].get("copies", 0)
        )
        contributions = [
            Contribution(c["contributor"], bytes.fromhex(c["entropy"]))
            for c in vector["contributions"]
        ]
        assert commitment(vector["shuffle_id"], seed).hex() == vector["commitment"]
        key = shuffle_key(seed, vector["shuffle_id"], contributions, vector["nonce"])
        assert key.hex() == vector["key"]
        order = derive_order(
            seed, vector["shuffle_id"], contributions, vector["nonce"], deck.card_multiset()
        )
        assert format_cards(order) == vector["order"], vector["name"]


def test_committed_vectors_match_the_independent_reference() -> None:
    for vector in VECTORS:
        seed, contributions, cards = _inputs(vector)
        assert reference.commitment_hex(vector["shuffle_id"], seed) == vector["commitment"]
        key = reference.key(seed, vector["shuffle_id"], contributions, vector["nonce"])
        assert key.hex() == vector["key"]
        assert " ".join(reference.order(key, cards)) == vector["order"], vector["name"]


def test_first_vector_is_a_permutation_of_the_deck() -> None:
    order = VECTORS[0]["order"].split()
    assert sorted(order) == sorted(str(c) for c in standard_deck())


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=64),
    shuffle_id=st.text(min_size=1, max_size=20).filter(lambda s: len(s.encode()) <= 128),
    contributions=st.lists(
        st.tuples(st.text(min_size=1, max_size=8), st.binary(min_size=1, max_size=40)), max_size=3
    ),
    nonce=st.integers(0, 5),
    size=st.integers(1, 52),
)
def test_production_and_reference_agree_on_arbitrary_inputs(
    seed: bytes, shuffle_id: str, contributions: list[tuple[str, bytes]], nonce: int, size: int
) -> None:
    cards = list(standard_deck())[:size]
    production = derive_order(
        seed,
        shuffle_id,
        [Contribution(who, entropy) for who, entropy in contributions],
        nonce,
        cards,
    )
    key = reference.key(seed, shuffle_id, contributions, nonce)
    assert [str(c) for c in production] == reference.order(key, [str(c) for c in cards])
    assert commitment(shuffle_id, seed).hex() == reference.commitment_hex(shuffle_id, seed)
