"""Where the split card is and what its second card is: exact by the ticket deck, and
through the dealer's own derivation over many rounds."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from services.games.errors import InvalidAction
from services.games.videopoker.split import (
    OFFSETS,
    STUB,
    read_ticket,
    second_card,
    ticket_deck,
)
from services.games.videopoker.state import STANDARD_DECK
from tests.unit.games.videopoker.machine import Machine


def placements(cards: tuple[str, ...]) -> Counter[tuple[int, int]]:
    return Counter((read_ticket(card).position, read_ticket(card).offset) for card in cards)


def test_the_default_ticket_deck_deals_the_split_card_exactly_a_quarter_of_the_time() -> None:
    deck = ticket_deck(Fraction(1, 4)).cards
    counts = placements(deck)
    assert len(deck) == 60
    dealt = sum(n for (position, _), n in counts.items() if position != STUB)
    assert Fraction(dealt, len(deck)) == Fraction(1, 4)
    for position in range(5):  # each dealt position 1/20, each second card a third of that
        for offset in OFFSETS:
            assert Fraction(counts[(position, offset)], len(deck)) == Fraction(1, 60)
    for offset in OFFSETS:
        assert Fraction(counts[(STUB, offset)], len(deck)) == Fraction(1, 4)


@pytest.mark.parametrize(
    "chance", [Fraction(0), Fraction(5, 52), Fraction(1, 3), Fraction(2, 5), Fraction(1)]
)
def test_any_chance_is_produced_exactly(chance: Fraction) -> None:
    deck = ticket_deck(chance)
    assert deck.in_deal == chance
    dealt = sum(1 for card in deck.cards if read_ticket(card).position != STUB)
    assert Fraction(dealt, len(deck.cards)) == chance
    offsets = Counter(read_ticket(card).offset for card in deck.cards)
    assert len(set(offsets.values())) == 1  # every second card equally likely


def test_a_chance_the_dealer_cannot_shuffle_is_refused() -> None:
    with pytest.raises(InvalidAction, match="at most 416"):
        ticket_deck(Fraction(1, 97))


@pytest.mark.parametrize("base", STANDARD_DECK)
def test_a_split_cards_second_card_is_its_suit_one_rank_down_the_same_or_one_up(base: str) -> None:
    seconds = [second_card(base, offset) for offset in OFFSETS]
    ranks = "23456789TJQKA"
    i = ranks.index(base[0])
    assert seconds == [ranks[(i - 1) % 13] + base[1], base, ranks[(i + 1) % 13] + base[1]]


def test_an_ace_splits_into_a_king_an_ace_or_a_two() -> None:
    assert [second_card("As", offset) for offset in OFFSETS] == ["Ks", "As", "2s"]
    assert [second_card("2d", offset) for offset in OFFSETS] == ["Ad", "2d", "3d"]


@pytest.mark.slow
def test_rounds_dealt_by_the_dealers_derivation_place_the_split_card_as_the_tickets_say() -> None:
    """1,200 rounds of derived shuffles (fixed seeds, so the counts are the same every run):
    the split card is dealt about a quarter of the time, every position and second card in
    its proportion (chi-square, 17 degrees of freedom, below its 0.999 quantile 40.8)."""
    rounds = 1_200
    machine = Machine(seed=b"split-placement")
    machine.sit(rounds * 30)
    seen: Counter[tuple[int, int]] = Counter()
    for _ in range(rounds):
        machine.deal(3, 10)
        current = machine.state.round
        assert current is not None
        seen[(current.split_position, current.split_offset)] += 1
        machine.hold(0, 1, 2, 3, 4)
    expected = {
        key: rounds * Fraction(n, 60)
        for key, n in placements(ticket_deck(Fraction(1, 4)).cards).items()
    }
    chi_square = sum((seen[key] - e) ** 2 / e for key, e in expected.items())
    assert float(chi_square) < 40.8
    dealt = sum(n for (position, _), n in seen.items() if position != STUB)
    assert 0.21 < dealt / rounds < 0.29
