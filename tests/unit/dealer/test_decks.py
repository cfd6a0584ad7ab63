import pytest

from services.games.cards import parse_cards
from services.shuffles.decks import DeckSpec, DeckSpecError
from services.shuffles.derivation import derive_order


def test_standard_deck_is_52_distinct_cards() -> None:
    cards = DeckSpec().card_multiset()
    assert len(cards) == 52 == len(set(cards))


def test_two_deck_game_holds_every_card_twice() -> None:
    cards = DeckSpec.parse("standard", copies=2).card_multiset()
    assert len(cards) == 104 and len(set(cards)) == 52


def test_duplicate_card_in_a_distinct_card_deck_is_refused_naming_it() -> None:
    with pytest.raises(DeckSpecError, match="duplicate card Td"):
        DeckSpec.parse("cards", ["As", "Td", "2c", "Td"])


def test_duplicates_are_allowed_when_the_spec_says_multiset() -> None:
    spec = DeckSpec.parse("multiset", ["As", "As", "Kd"])
    assert spec.card_multiset() == parse_cards("Kd As As") and spec.allows_duplicates


def test_malformed_card_in_a_deck_spec_is_refused_naming_it() -> None:
    with pytest.raises(DeckSpecError, match="'Xx'"):
        DeckSpec.parse("cards", ["As", "Xx"])


@pytest.mark.parametrize(
    ("kind", "cards", "copies"),
    [("standard", (), 9), ("cards", (), 0), ("jokers", (), 0), ("standard", ("As",), 1)],
)
def test_unusable_specs_are_refused(kind: str, cards: tuple[str, ...], copies: int) -> None:
    with pytest.raises(DeckSpecError):
        DeckSpec.parse(kind, cards, copies)


def test_the_order_a_spec_lists_its_cards_in_does_not_change_the_deal() -> None:
    seed = bytes(32)
    a = DeckSpec.parse("cards", ["As", "Kd", "7h", "2c"])
    b = DeckSpec.parse("cards", ["2c", "7h", "As", "Kd"])
    assert derive_order(seed, "s", (), 0, a.card_multiset()) == derive_order(
        seed, "s", (), 0, b.card_multiset()
    )
