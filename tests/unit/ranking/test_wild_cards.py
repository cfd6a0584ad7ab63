import random
from collections.abc import Iterator, Sequence

import pytest

from services.games.cards import Card, parse_cards
from services.ranking import Category, cards_of_ranks, evaluate_high
from services.ranking.values import category_of, ranks_of
from tests.unit.ranking.reference import ref_wild

DEUCES = cards_of_ranks("2")


def _random_wild_hands(seed: int, size: int, wilds: int, n: int) -> Iterator[list[Card]]:
    rng = random.Random(seed)
    deuces = [c.index for c in DEUCES]
    others = [i for i in range(52) if i not in deuces]
    for _ in range(n):
        yield [
            Card(i % 13, i // 13)
            for i in rng.sample(deuces, wilds) + rng.sample(others, size - wilds)
        ]


def _check_against_brute_force(hand: Sequence[Card], five_kind_below: bool = False) -> None:
    result = evaluate_high(hand, DEUCES, five_kind_below)
    naturals = [(c.rank, c.suit) for c in hand if c not in DEUCES]
    expected = ref_wild(naturals, len(hand) - len(naturals), five_kind_below)
    assert (category_of(result.value), ranks_of(result.value)) == expected, hand


@pytest.mark.parametrize(
    ("wilds", "n"),
    [
        (1, 400),
        pytest.param(2, 200, marks=pytest.mark.slow),
        pytest.param(3, 40, marks=pytest.mark.slow),
    ],
)
def test_five_card_wild_hands_match_every_substitution(wilds: int, n: int) -> None:
    for hand in _random_wild_hands(wilds, 5, wilds, n):
        _check_against_brute_force(hand)


@pytest.mark.slow
def test_four_wild_hands_match_every_substitution_both_orders() -> None:
    for hand in _random_wild_hands(4, 5, 4, 6):
        _check_against_brute_force(hand)
        _check_against_brute_force(hand, five_kind_below=True)


@pytest.mark.slow
def test_seven_card_wild_hands_match_every_substitution() -> None:
    for wilds in (1, 2):
        for hand in _random_wild_hands(10 + wilds, 7, wilds, 12 // wilds):
            _check_against_brute_force(hand)


def test_five_of_a_kind_with_a_wild_and_four_naturals() -> None:
    result = evaluate_high(parse_cards("As Ah Ad Ac 2c"), DEUCES)
    assert result.category is Category.FIVE_OF_A_KIND
    assert result.description == "Five of a kind, aces"
    assert [str(s.stands_for)[0] for s in result.substitutions] == ["A"]


def test_four_wilds_make_five_of_a_kind_of_the_natural() -> None:
    result = evaluate_high(parse_cards("2c 2d 2h 2s 7d"), DEUCES)
    assert result.description == "Five of a kind, sevens"


def test_five_of_a_kind_beats_a_royal_flush_by_default_and_not_below_option() -> None:
    # Four wilds and the ace of spades: five aces or a royal flush.
    hand = parse_cards("2c 2d 2h 2s As")
    assert evaluate_high(hand, DEUCES).category is Category.FIVE_OF_A_KIND
    below = evaluate_high(hand, DEUCES, five_kind_below=True)
    assert below.category is Category.STRAIGHT_FLUSH
    assert below.description == "Royal flush"


def test_five_of_a_kind_below_option_still_beats_four_of_a_kind() -> None:
    five = evaluate_high(parse_cards("Kc Kd Kh Ks 2c"), DEUCES, five_kind_below=True)
    quads = evaluate_high(parse_cards("Ac Ad Ah As 3c"), DEUCES, five_kind_below=True)
    flush = evaluate_high(parse_cards("9s 8s 7s 6s 2c"), DEUCES, five_kind_below=True)
    assert quads.value < five.value < flush.value
    assert flush.category is Category.STRAIGHT_FLUSH


def test_wild_fills_the_wheel_and_broadway() -> None:
    wheel = evaluate_high(parse_cards("Ac 3d 4h 5s 2c"), DEUCES)
    assert wheel.description == "Straight, five high"
    broadway = evaluate_high(parse_cards("Ac Kd Qh Js 2c"), DEUCES)
    assert broadway.description == "Straight, ace high"
    assert [str(s.stands_for)[0] for s in broadway.substitutions] == ["T"]


def test_wild_in_a_flush_is_an_ace_even_when_the_ace_of_that_suit_is_held() -> None:
    result = evaluate_high(parse_cards("Ah 9h 7h 4h 2c"), DEUCES)
    assert result.category is Category.FLUSH
    assert ranks_of(result.value) == (14, 14, 9, 7, 4)
    assert [str(s.stands_for) for s in result.substitutions] == ["Ah"]
    plain = evaluate_high(parse_cards("Ah Kh 9h 7h 4h"))
    assert result.value > plain.value


def test_wild_flush_without_the_ace_stands_for_the_ace() -> None:
    result = evaluate_high(parse_cards("Kh 9h 7h 4h 2s"), DEUCES)
    assert result.description == "Flush, ace high"
    assert [str(s.stands_for) for s in result.substitutions] == ["Ah"]


def test_equal_wild_hands_tie_regardless_of_suits_and_wilds() -> None:
    one = evaluate_high(parse_cards("Ks Kd 9c 9h 2c"), DEUCES)
    other = evaluate_high(parse_cards("Kh Kc 9d 9s 2h"), DEUCES)
    assert one.value == other.value
    assert one.description == "Full house, kings full of nines"


def test_single_declared_wild_card_is_wild_only_itself() -> None:
    one_eyed = frozenset(parse_cards("Js Jh"))
    result = evaluate_high(parse_cards("Js Jd 9c 9h 4s"), one_eyed)
    assert result.description == "Three of a kind, nines"
    natural = evaluate_high(parse_cards("Jd Jc 9c 9h 4s"), one_eyed)
    assert natural.description == "Two pair, jacks and nines"
