"""Commitment and verification round trip; every tampering is caught and named."""

import pytest

from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, commitment, derive_order
from services.shuffles.verification import Dealt, Reshuffled, Step, verify

SEED = bytes(range(32))
SHUFFLE = "table-9/hand-3"
CONTRIBUTIONS = (Contribution("alice", b"alice's entropy"), Contribution("bob", b"\x01\x02"))
DECK = DeckSpec()


def honest_hand() -> tuple[bytes, list[Dealt]]:
    order = derive_order(SEED, SHUFFLE, CONTRIBUTIONS, 0, DECK.card_multiset())
    steps = [Dealt(order[0:4]), Dealt(order[4:5]), Dealt(order[5:8])]
    return commitment(SHUFFLE, SEED), steps


def test_an_honest_hand_verifies() -> None:
    published, steps = honest_hand()
    result = verify(published, SEED, SHUFFLE, DECK, CONTRIBUTIONS, steps)
    assert result.ok and result.cards_checked == 8


@pytest.mark.parametrize("bit", [0, 7, 100, 255])
def test_one_flipped_seed_bit_is_caught_at_the_commitment(bit: int) -> None:
    published, steps = honest_hand()
    seed = bytearray(SEED)
    seed[bit // 8] ^= 1 << (bit % 8)
    result = verify(published, bytes(seed), SHUFFLE, DECK, CONTRIBUTIONS, steps)
    assert not result.ok
    assert result.mismatch is not None
    assert result.mismatch.kind == "commitment"


def test_two_swapped_dealt_cards_are_caught_at_the_first_swapped_position() -> None:
    published, steps = honest_hand()
    first = list(steps[0].cards)
    first[1], first[3] = first[3], first[1]
    result = verify(
        published, SEED, SHUFFLE, DECK, CONTRIBUTIONS, [Dealt(tuple(first)), *steps[1:]]
    )
    assert result.mismatch is not None
    assert result.mismatch.kind == "card" and result.mismatch.position == 1
    assert result.mismatch.expected == str(steps[0].cards[1])
    assert result.mismatch.actual == str(steps[0].cards[3])


def test_a_late_contribution_changes_the_order_and_is_caught() -> None:
    published, steps = honest_hand()
    late = (*CONTRIBUTIONS, Contribution("mallory", b"late"))
    result = verify(published, SEED, SHUFFLE, DECK, late, steps)
    assert result.mismatch is not None
    assert result.mismatch.kind == "card" and result.mismatch.position == 0


def test_reordered_contributions_are_caught() -> None:
    published, steps = honest_hand()
    result = verify(published, SEED, SHUFFLE, DECK, CONTRIBUTIONS[::-1], steps)
    assert result.mismatch is not None
    assert result.mismatch.kind == "card"


def test_a_different_shuffle_id_is_caught_at_the_commitment() -> None:
    published, steps = honest_hand()
    result = verify(published, SEED, "table-9/hand-4", DECK, CONTRIBUTIONS, steps)
    assert result.mismatch is not None
    assert result.mismatch.kind == "commitment"


def test_dealing_past_the_end_of_the_deck_is_caught() -> None:
    deck = DeckSpec.parse("cards", ["As", "Kd", "Qh"])
    order = derive_order(SEED, SHUFFLE, (), 0, deck.card_multiset())
    result = verify(commitment(SHUFFLE, SEED), SEED, SHUFFLE, deck, (), [Dealt((*order, order[0]))])
    assert result.mismatch is not None
    assert result.mismatch.kind == "past_end" and result.mismatch.position == 3


def test_a_reshuffle_continues_with_nonce_one_over_undealt_plus_returned_cards() -> None:
    deck = DECK.card_multiset()
    first = derive_order(SEED, SHUFFLE, CONTRIBUTIONS, 0, deck)
    returned = first[:3]
    second = derive_order(SEED, SHUFFLE, CONTRIBUTIONS, 1, first[10:] + returned)
    assert len(second) == 45
    steps: list[Step] = [Dealt(first[:10]), Reshuffled(returned), Dealt(second[:5])]
    result = verify(commitment(SHUFFLE, SEED), SEED, SHUFFLE, DECK, CONTRIBUTIONS, steps)
    assert result.ok and result.cards_checked == 15


def test_returning_a_card_that_was_never_dealt_is_caught() -> None:
    deck = DECK.card_multiset()
    first = derive_order(SEED, SHUFFLE, CONTRIBUTIONS, 0, deck)
    steps: list[Step] = [Dealt(first[:2]), Reshuffled((first[5],))]
    result = verify(commitment(SHUFFLE, SEED), SEED, SHUFFLE, DECK, CONTRIBUTIONS, steps)
    assert result.mismatch is not None
    assert result.mismatch.kind == "reshuffle" and str(first[5]) in result.mismatch.message
