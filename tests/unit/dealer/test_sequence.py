import pytest

from services.games.cards import parse_cards
from services.shuffles.sequence import DealingError, DealSequence, keep_given_order

DECK = parse_cards("As Kd Qh Jc Ts")


def test_deals_continue_in_order_and_count_what_remains() -> None:
    sequence = DealSequence.start(DECK, keep_given_order)
    first, sequence = sequence.deal(2)
    second, sequence = sequence.deal(1)
    assert first == parse_cards("As Kd") and second == parse_cards("Qh")
    assert sequence.remaining == 2 and set(sequence.out) == set(parse_cards("As Kd Qh"))


def test_dealing_past_the_end_names_how_many_cards_remain() -> None:
    sequence = DealSequence.start(DECK, keep_given_order)
    _, sequence = sequence.deal(4)
    with pytest.raises(DealingError, match="cannot deal 2 card\\(s\\): 1 remain"):
        sequence.deal(2)


def test_reshuffle_of_a_test_deck_keeps_undealt_order_and_appends_returned_cards() -> None:
    sequence = DealSequence.start(DECK, keep_given_order)
    _, sequence = sequence.deal(3)
    sequence = sequence.reshuffle(parse_cards("Kd"), keep_given_order)
    assert sequence.order == parse_cards("Jc Ts Kd") and sequence.nonce == 1
    assert set(sequence.out) == set(parse_cards("As Qh"))


def test_a_card_can_return_only_once() -> None:
    sequence = DealSequence.start(DECK, keep_given_order)
    _, sequence = sequence.deal(2)
    sequence = sequence.reshuffle(parse_cards("As"), keep_given_order)
    with pytest.raises(DealingError, match="card As cannot be returned"):
        sequence.reshuffle(parse_cards("As"), keep_given_order)
