"""Every pay line of every table, wild deuces and split-card six-card hands included."""

from __future__ import annotations

import pytest

from services.games.videopoker.hands import best_five, ladder
from services.games.videopoker.paytables import PAYTABLES, Hand
from services.games.videopoker.settle import pair_of
from services.games.videopoker.split import split_parts


def judge(cards: str, paytable: str, split: bool = False) -> Hand:
    singles = [part for card in cards.split() for part in split_parts(card)]
    return best_five([pair_of(card) for card in singles], ladder(PAYTABLES[paytable], split)).hand


JACKS = [
    ("Ah Kh Qh Jh Th", Hand.ROYAL_FLUSH),
    ("9s Ks Qs Js Ts", Hand.STRAIGHT_FLUSH),
    ("As 2s 3s 4s 5s", Hand.STRAIGHT_FLUSH),
    ("7c 7d 7h 7s 2c", Hand.FOUR_OF_A_KIND),
    ("7c 7d 7h 2s 2c", Hand.FULL_HOUSE),
    ("Ac 9c 7c 4c 2c", Hand.FLUSH),
    ("Ac 2d 3h 4s 5c", Hand.STRAIGHT),
    ("Tc Jd Qh Ks Ac", Hand.STRAIGHT),
    ("7c 7d 7h Ks 2c", Hand.THREE_OF_A_KIND),
    ("7c 7d 3h 3s Ac", Hand.TWO_PAIR),
    ("Jc Jd 3h 4s 9c", Hand.JACKS_OR_BETTER),
    ("Ac Ad 3h 4s 9c", Hand.JACKS_OR_BETTER),
    ("Tc Td 3h 4s 9c", Hand.NOTHING),
    ("Kc Qd 3h 4s 9c", Hand.NOTHING),
    ("Qc Kd Ah 2s 3c", Hand.NOTHING),  # no straight around the corner
]

DEUCES = [
    ("Ah Kh Qh Jh Th", Hand.ROYAL_FLUSH),
    ("2c 2d 2h 2s 7c", Hand.FOUR_DEUCES),
    ("2h Kh Qh Jh Th", Hand.WILD_ROYAL_FLUSH),
    ("2h 2c Qh Jh Th", Hand.WILD_ROYAL_FLUSH),
    ("2h 7c 7d 7h 7s", Hand.FIVE_OF_A_KIND),
    ("2h 2c 2d 9h 9s", Hand.FIVE_OF_A_KIND),
    ("2h 5h 6h 7h 9h", Hand.STRAIGHT_FLUSH),
    ("2h 2c 3h 4h 5h", Hand.STRAIGHT_FLUSH),  # a wheel flush with two wild cards
    ("2h 7c 7d 7h Ks", Hand.FOUR_OF_A_KIND),
    ("2h 7c 7d Kh Ks", Hand.FULL_HOUSE),
    ("7c 7d 7h Ks Kc", Hand.FULL_HOUSE),
    ("2h Ah 9h 7h 4h", Hand.FLUSH),
    ("2h 3c 4d 5s 7c", Hand.STRAIGHT),
    ("2h Ac Kd Qs Jc", Hand.STRAIGHT),
    ("2h 7c 7d 9s Kc", Hand.THREE_OF_A_KIND),
    ("2h 7c 3d 9s Kc", Hand.NOTHING),  # a deuce and a king: a pair pays nothing
    ("7c 7d 3h 3s Ac", Hand.NOTHING),  # two pair pays nothing in deuces wild
    ("Ac Ad 3h 4s 9c", Hand.NOTHING),
]

DOUBLE_DOUBLE = [
    ("Ah Kh Qh Jh Th", Hand.ROYAL_FLUSH),
    ("Ac Ad Ah As 3c", Hand.FOUR_ACES_WITH_2_3_4),
    ("Ac Ad Ah As 2c", Hand.FOUR_ACES_WITH_2_3_4),
    ("Ac Ad Ah As 5c", Hand.FOUR_ACES),
    ("3c 3d 3h 3s Ac", Hand.FOUR_2S_3S_4S_WITH_A_2_3_4),
    ("4c 4d 4h 4s 2c", Hand.FOUR_2S_3S_4S_WITH_A_2_3_4),
    ("2c 2d 2h 2s 9c", Hand.FOUR_2S_3S_4S),
    ("9c 9d 9h 9s 2c", Hand.FOUR_5S_THROUGH_KINGS),
    ("5c 5d 5h 5s Ac", Hand.FOUR_5S_THROUGH_KINGS),
    ("9h Th Jh Qh Kh", Hand.STRAIGHT_FLUSH),
    ("9h 9c 9d Qh Qs", Hand.FULL_HOUSE),
    ("9h 2h 4h Qh Kh", Hand.FLUSH),
    ("9h Tc Jd Qs Kh", Hand.STRAIGHT),
    ("9h 9c 9d 2s 5h", Hand.THREE_OF_A_KIND),
    ("Jh Jc 9d 9s 5h", Hand.TWO_PAIR),  # pays 1 like jacks or better; reported as two pair
    ("Qh Qc 9d 2s 5h", Hand.JACKS_OR_BETTER),
    ("9h 9c 3d 2s 5h", Hand.NOTHING),
]


@pytest.mark.parametrize(("cards", "hand"), JACKS)
def test_jacks_or_better_lines(cards: str, hand: Hand) -> None:
    assert judge(cards, "jacks-9-6") is hand


@pytest.mark.parametrize(("cards", "hand"), DEUCES)
def test_deuces_wild_lines(cards: str, hand: Hand) -> None:
    assert judge(cards, "deuces-wild") is hand


@pytest.mark.parametrize(("cards", "hand"), DOUBLE_DOUBLE)
def test_double_double_bonus_lines(cards: str, hand: Hand) -> None:
    assert judge(cards, "double-double-bonus-9-6") is hand


@pytest.mark.parametrize(
    ("paytable", "cases"),
    [("jacks-9-6", JACKS), ("deuces-wild", DEUCES), ("double-double-bonus-9-6", DOUBLE_DOUBLE)],
)
def test_the_cases_cover_every_line_of_the_table(
    paytable: str, cases: list[tuple[str, Hand]]
) -> None:
    paid = {line.hand for line in PAYTABLES[paytable].lines}
    assert paid | {Hand.NOTHING} == {hand for _, hand in cases}


@pytest.mark.parametrize(
    ("paytable", "pays"),
    [
        ("jacks-9-6", [800, 50, 25, 9, 6, 4, 3, 2, 1]),
        ("deuces-wild", [800, 200, 25, 15, 9, 5, 3, 2, 2, 1]),
        ("double-double-bonus-9-6", [800, 400, 160, 160, 80, 50, 50, 9, 6, 4, 3, 1, 1]),
    ],
)
def test_the_tables_pay_what_the_issue_lists_per_coin_at_five_coins(
    paytable: str, pays: list[int]
) -> None:
    assert [line.pays_at_max for line in PAYTABLES[paytable].lines] == pays


@pytest.mark.parametrize("paytable", sorted(PAYTABLES))
def test_the_royal_pays_250_a_coin_below_five_coins_and_800_at_five(paytable: str) -> None:
    table = PAYTABLES[paytable]
    assert [table.pay(Hand.ROYAL_FLUSH, coins) for coins in (1, 2, 3, 4, 5)] == [
        250,
        500,
        750,
        1000,
        4000,
    ]
    assert table.pay(Hand.STRAIGHT_FLUSH, 4) * 5 == table.pay(Hand.STRAIGHT_FLUSH, 5) * 4


def test_a_split_line_of_ten_coins_is_paid_as_for_five_coins() -> None:
    table = PAYTABLES["jacks-9-6"]
    assert table.pay(Hand.ROYAL_FLUSH, 10) == 4000
    assert table.pay(Hand.FULL_HOUSE, 10) == 45
    assert table.pay(Hand.NOTHING, 10) == 0


@pytest.mark.parametrize(
    ("paytable", "value"),
    [("jacks-9-6", 200), ("deuces-wild", 15), ("double-double-bonus-9-6", 400)],
)
def test_the_feature_adds_five_of_a_kind_at_the_tables_parameter(paytable: str, value: int) -> None:
    table = PAYTABLES[paytable]
    assert table.split.five_of_a_kind == value
    assert table.pay(Hand.FIVE_OF_A_KIND, 10) == 5 * value
    if paytable != "deuces-wild":
        assert table.pay(Hand.FIVE_OF_A_KIND, 5) == 0  # not a line without the feature
    lines = table.lines_for(True)
    assert [line.pays_at_max for line in lines] == sorted(
        (line.pays_at_max for line in lines), reverse=True
    )


SPLIT_HANDS = [
    # A split card counts as both its cards: six cards, paid once for the best five.
    ("jacks-9-6", "7h|7h 7c 7d 7s Kc", Hand.FIVE_OF_A_KIND),
    ("jacks-9-6", "7h|7h 8h 9h Jh 2c", Hand.FLUSH),  # one card twice still makes a flush
    ("jacks-9-6", "7h|7h 7c 2d 3s 9c", Hand.THREE_OF_A_KIND),
    ("jacks-9-6", "Ah|Kh Qh Jh Th 2c", Hand.ROYAL_FLUSH),
    ("jacks-9-6", "8h|9h Th Jh Qh 2c", Hand.STRAIGHT_FLUSH),  # 8-Q (9-K impossible: no Kh)
    ("jacks-9-6", "Ah|2h 3h 4h 5h Kc", Hand.STRAIGHT_FLUSH),  # the ace splits into a 2
    ("jacks-9-6", "Ah|Kh Kc 3d 4s 9c", Hand.JACKS_OR_BETTER),
    ("jacks-9-6", "Kh|Qh Kc Qd 4s 9c", Hand.TWO_PAIR),
    ("jacks-9-6", "5c|6c 7d 8h 9s 2c", Hand.STRAIGHT),
    ("jacks-9-6", "Kh|Qh Qh 3d 4s 9c", Hand.JACKS_OR_BETTER),  # the real Qh beside a printed one
    ("jacks-9-6", "9c|Tc Tc Td 9d 2s", Hand.FULL_HOUSE),
    ("deuces-wild", "2h|2h 2c 2d 2s 7c", Hand.FOUR_DEUCES),  # five wild cards: four deuces
    ("deuces-wild", "7h|7h 7c 7d 7s 3c", Hand.FIVE_OF_A_KIND),  # natural five of a kind
    ("deuces-wild", "2h|Ah Kh Qh Jh 9c", Hand.WILD_ROYAL_FLUSH),
    ("deuces-wild", "Ah|Kh Qh Jh Th 2c", Hand.ROYAL_FLUSH),  # natural royal, the deuce dropped
    ("double-double-bonus-9-6", "Ac|Ac Ad Ah As 9c", Hand.FIVE_OF_A_KIND),  # 400 > 160
    ("double-double-bonus-9-6", "3c|4c Ad Ah As Ac", Hand.FOUR_ACES_WITH_2_3_4),
    ("double-double-bonus-9-6", "3c|3c 3d 3h 3s 9c", Hand.FIVE_OF_A_KIND),
]


@pytest.mark.parametrize(("paytable", "cards", "hand"), SPLIT_HANDS)
def test_a_split_hand_is_paid_once_for_its_best_five(paytable: str, cards: str, hand: Hand) -> None:
    assert judge(cards, paytable, split=True) is hand


def test_five_of_a_kind_below_a_better_four_pays_the_better_hand() -> None:
    """The best paying five decides: with five of a kind valued under four aces with a low
    kicker, a six-card hand holding both is paid as the four aces."""
    from dataclasses import replace

    from services.games.videopoker.hands import Ladder
    from services.games.videopoker.paytables import SplitFeature

    table = PAYTABLES["double-double-bonus-9-6"]
    cheap = replace(table, split=SplitFeature(five_of_a_kind=100))
    rules = Ladder(cheap, True, cheap.lines_for(True), None)
    cards = [pair_of(card) for card in ["Ac", "Ac", "Ad", "Ah", "As", "2c"]]
    assert best_five(cards, rules).hand is Hand.FOUR_ACES_WITH_2_3_4
