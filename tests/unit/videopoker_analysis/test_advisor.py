"""The advisor's values are the enumeration of the draws, on sampled hands."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from services.games.videopoker.paytables import PAYTABLES
from services.games.videopoker.split import OFFSETS, second_card
from services.games.videopoker.state import STANDARD_DECK
from services.videopoker_analysis.advisor import AdviceError, advise
from tests.unit.videopoker_analysis.brute import numpy_holds, pure_hold

TABLES = sorted(PAYTABLES)


def sampled(seed: int, split: bool) -> list[str]:
    """Five random cards; with `split`, one of them (a random position) a split card."""
    rng = random.Random(seed)
    cards = rng.sample(STANDARD_DECK, 5)
    if split:
        position = rng.randrange(5)
        cards[position] += "|" + second_card(cards[position], rng.choice(OFFSETS))
    return cards


# The Split Card cases build the split tables of each pay table (seconds each): `slow`.
CASES = [
    pytest.param(seed, paytable, coins, split, marks=[pytest.mark.slow] if coins == 10 else [])
    for seed, (paytable, coins, split) in enumerate(
        [(p, c, False) for p in TABLES for c in (1, 5)]
        + [(p, 10, False) for p in TABLES]
        + [(p, 10, True) for p in TABLES for _ in range(2)]
    )
]


@pytest.mark.parametrize(("seed", "paytable", "coins", "split"), CASES)
def test_holds_of_three_or_more_cards_equal_plain_enumeration(
    seed: int, paytable: str, coins: int, split: bool
) -> None:
    cards = sampled(seed, split)
    advice = advise(cards, paytable, coins)
    assert len(advice.holds) == 32
    # With the undealt split card possible each draw is many hands: four or more held there.
    fewest = 4 if coins == 10 and not split else 3
    for hold in advice.holds:
        if len(hold.positions) >= fewest:
            assert hold.expected_win == pure_hold(cards, paytable, coins, hold.positions), hold


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "paytable", "coins", "split"),
    [
        (101, "jacks-9-6", 5, False),
        (102, "deuces-wild", 3, False),
        (103, "double-double-bonus-9-6", 10, True),
        (104, "jacks-9-6", 10, True),
        (105, "deuces-wild", 10, False),
    ],
)
def test_every_hold_equals_enumerating_every_draw(
    seed: int, paytable: str, coins: int, split: bool
) -> None:
    cards = sampled(seed, split)
    expected = numpy_holds(cards, paytable, coins)
    advice = advise(cards, paytable, coins)
    assert {hold.positions: hold.expected_win for hold in advice.holds} == expected
    assert advice.best.expected_win == max(expected.values())


def test_a_dealt_royal_is_held_whole() -> None:
    advice = advise(["Ah", "Kh", "Qh", "Jh", "Th"], "jacks-9-6")
    assert advice.best.positions == (0, 1, 2, 3, 4) and advice.best.expected_win == 4000


def test_four_to_a_royal_beats_a_made_flush() -> None:
    advice = advise(["Ah", "Kh", "Qh", "Jh", "3h"], "jacks-9-6")
    assert advice.best.positions == (0, 1, 2, 3)
    flush = next(h for h in advice.holds if h.positions == (0, 1, 2, 3, 4))
    assert flush.expected_win == 30 and advice.best.expected_win > flush.expected_win


def test_values_are_per_line_at_the_coins_bet() -> None:
    five = advise(["Ah", "Kh", "Qh", "Jh", "3c"], "jacks-9-6", 5).best
    one = advise(["Ah", "Kh", "Qh", "Jh", "3c"], "jacks-9-6", 1).best
    assert five.per_coin(5) - one.per_coin(1) == Fraction(800 - 250, 47)


@pytest.mark.parametrize(
    ("cards", "coins", "paytable", "words"),
    [
        (["Ah", "Kh", "Qh", "Jh"], 5, "jacks-9-6", "a dealt hand has 5 cards, got 4"),
        (["Ah", "Kh", "Qh", "Jh", "Ah"], 5, "jacks-9-6", "card Ah is dealt twice"),
        (["Ah", "Kh", "Qh", "Jh", "1h"], 5, "jacks-9-6", "'1h' is not a card"),
        (["Ah|Kh", "7c", "Qh", "Jh", "9c"], 5, "jacks-9-6", "only with the feature"),
        (["Ah|Qh", "7c", "Qh", "Jh", "9c"], 10, "jacks-9-6", "rank equal or one away"),
        (["Ah|Kh", "7c|7c", "Qh", "Jh", "9c"], 10, "jacks-9-6", "one split card"),
        (["Ah", "Kh", "Qh", "Jh", "9c"], 6, "jacks-9-6", "coins must be 1 to 5, or 10"),
        (["Ah", "Kh", "Qh", "Jh", "9c"], 5, "jacks-8-5", "unknown pay table 'jacks-8-5'"),
    ],
)
def test_what_the_advisor_cannot_read_is_refused_with_a_reason(
    cards: list[str], coins: int, paytable: str, words: str
) -> None:
    with pytest.raises(AdviceError, match=words):
        advise(cards, paytable, coins)
