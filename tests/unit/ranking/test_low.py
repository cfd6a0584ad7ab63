import itertools

import pytest

from services.games.cards import Card, parse_cards
from services.ranking import cards_of_ranks, evaluate_low
from services.ranking.values import low_ranks_of
from tests.unit.ranking.reference import ref_low

LOW_RANK_INDEX = {1: 12, 2: 0, 3: 1, 4: 2, 5: 3, 6: 4, 7: 5, 8: 6}


def test_every_qualifying_five_card_low_class_in_order() -> None:
    results = []
    for ranks in itertools.combinations(range(1, 9), 5):
        cards = [Card(LOW_RANK_INDEX[r], i % 4) for i, r in enumerate(ranks)]
        low = evaluate_low(cards)
        assert low is not None
        assert low_ranks_of(low.value) == tuple(sorted(ranks, reverse=True))
        results.append((tuple(sorted(ranks, reverse=True)), low.value))
    assert len({v for _, v in results}) == 56
    # A lower high card (then next card, ...) is the better low.
    by_value = [r for r, _ in sorted(results, key=lambda rv: rv[1], reverse=True)]
    assert by_value == sorted(r for r, _ in results)
    assert by_value[0] == (5, 4, 3, 2, 1)


def test_wheel_is_the_best_low_even_as_a_straight_flush() -> None:
    low = evaluate_low(parse_cards("As 2s 3s 4s 5s"))
    assert low is not None
    assert low.description == "5-4-3-2-A low"


def test_best_low_of_seven_skips_pairs_and_high_cards() -> None:
    low = evaluate_low(parse_cards("8c 6d 4h 2s As Kd 2c"))
    assert low is not None
    assert low.description == "8-6-4-2-A low"
    low = evaluate_low(parse_cards("7c 7d 6h 5s 3s 2c 9d"))
    assert low is not None
    assert low.description == "7-6-5-3-2 low"


@pytest.mark.parametrize(
    "hand",
    ["9c 6d 4h 2s As", "8c 8d 4h 2s As", "Kc Qd Jh Ts 9s 8c 7d", "Ac Ad 2h 2s 3c 3d 4h"],
)
def test_no_qualifying_low(hand: str) -> None:
    assert evaluate_low(parse_cards(hand)) is None


def test_low_matches_reference_on_every_seven_card_rank_pattern_sample() -> None:
    deck = [Card(i % 13, i // 13) for i in range(52)]
    for seven in itertools.islice(itertools.combinations(deck[:26], 7), 0, 200_000, 97):
        low = evaluate_low(list(seven))
        expected = ref_low([(c.rank, c.suit) for c in seven])
        assert (low_ranks_of(low.value) if low else None) == expected


def test_wild_card_is_the_lowest_missing_rank_for_low() -> None:
    low = evaluate_low(parse_cards("Kc 6d 4h 2s Ad"), cards_of_ranks("K"))
    assert low is not None
    assert low.description == "6-4-3-2-A low"
    assert [str(s.stands_for)[0] for s in low.substitutions] == ["3"]
