import pytest

from services.games.cards import (
    DECK_SIZE,
    Card,
    InvalidCardError,
    card_from_index,
    format_cards,
    parse_card,
    parse_cards,
    standard_deck,
)


def test_every_card_round_trips_through_its_two_character_form() -> None:
    for card in standard_deck():
        assert parse_card(str(card)) == card


def test_parsing_accepts_either_case_but_prints_canonically() -> None:
    assert str(parse_card("tD")) == "Td"
    assert str(parse_card("AS")) == "As"


def test_standard_deck_is_52_distinct_cards_in_suit_major_order() -> None:
    deck = standard_deck()
    assert len(deck) == DECK_SIZE == len(set(deck))
    assert [str(c) for c in deck[:2]] == ["2c", "3c"]
    assert str(deck[12]) == "Ac" and str(deck[13]) == "2d" and str(deck[51]) == "As"
    assert [c.index for c in deck] == list(range(52))
    assert all(card_from_index(c.index) == c for c in deck)


@pytest.mark.parametrize("text", ["", "A", "Asx", "1s", "Ax", "10h", "Zz"])
def test_malformed_card_is_refused_naming_it(text: str) -> None:
    with pytest.raises(InvalidCardError, match=repr(text).replace("[", r"\[")):
        parse_card(text)


def test_parse_cards_reads_compact_spaced_and_listed_forms() -> None:
    expected = (parse_card("As"), parse_card("Kd"))
    assert parse_cards("AsKd") == parse_cards("As Kd") == parse_cards("As,Kd") == expected
    assert parse_cards(["As", "Kd"]) == expected
    assert format_cards(expected) == "As Kd"


def test_odd_length_card_string_is_refused() -> None:
    with pytest.raises(InvalidCardError):
        parse_cards("AsK")


def test_out_of_range_indices_are_refused() -> None:
    with pytest.raises(InvalidCardError):
        Card(13, 0)
    with pytest.raises(InvalidCardError):
        card_from_index(52)
