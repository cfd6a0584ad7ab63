"""Pay tables as data: what each final hand pays per coin, and the Split Card parameters.

A pay table lists its lines from the best paid down (the order breaks ties between lines that
pay the same: Double Double Bonus pays two pair and jacks or better 1 each, and a hand that is
both is reported as two pair). `pays` is per coin bet with 1 to 4 coins, `pays_at_max` per coin
with 5 coins: only the royal differs (250 against 800), as on every standard machine.

The Split Card feature (10 coins a line) pays every line as for 5 coins and adds the
five-of-a-kind line, its value per coin the table's `SplitFeature.five_of_a_kind` (Deuces Wild
already pays five of a kind; with the feature that line's value is the parameter too).
`SplitFeature.in_deal` is the probability that the split card is one of the five dealt cards
(services.games.videopoker.split says exactly how a dealer shuffle produces it).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

COINS = (1, 2, 3, 4, 5)
SPLIT_COINS = 10  # coins a line with the Split Card feature
MAX_COINS = 5  # the royal's bonus pay, and what a split line is paid as
LINES = (3, 5, 10)


class Hand(StrEnum):
    """Every final-hand category any table pays (a table pays some of them)."""

    ROYAL_FLUSH = "royal-flush"
    FOUR_DEUCES = "four-deuces"
    WILD_ROYAL_FLUSH = "wild-royal-flush"
    FIVE_OF_A_KIND = "five-of-a-kind"
    STRAIGHT_FLUSH = "straight-flush"
    FOUR_ACES_WITH_2_3_4 = "four-aces-with-2-3-4"
    FOUR_2S_3S_4S_WITH_A_2_3_4 = "four-2s-3s-4s-with-a-2-3-4"
    FOUR_ACES = "four-aces"
    FOUR_2S_3S_4S = "four-2s-3s-4s"
    FOUR_5S_THROUGH_KINGS = "four-5s-through-kings"
    FOUR_OF_A_KIND = "four-of-a-kind"
    FULL_HOUSE = "full-house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three-of-a-kind"
    TWO_PAIR = "two-pair"
    JACKS_OR_BETTER = "jacks-or-better"
    NOTHING = "nothing"


@dataclass(frozen=True, slots=True)
class PayLine:
    hand: Hand
    label: str
    pays: int  # per coin, 1 to 4 coins
    pays_at_max: int  # per coin, 5 coins (and every Split Card line)


@dataclass(frozen=True, slots=True)
class SplitFeature:
    """The Split Card feature's parameters for one table."""

    five_of_a_kind: int  # per coin, as for 5 coins
    in_deal: Fraction = Fraction(1, 4)  # probability that the split card is among the five dealt


@dataclass(frozen=True, slots=True)
class PayTable:
    name: str  # the wire name: "jacks-9-6"
    title: str
    lines: tuple[PayLine, ...]  # best paid first
    split: SplitFeature
    wild_rank: str | None = None  # "2": every deuce is wild

    def lines_for(self, split: bool) -> tuple[PayLine, ...]:
        """The lines paid: with the feature, the five-of-a-kind line at the feature's value,
        placed by its pay (replacing a five-of-a-kind line the table already has)."""
        if not split:
            return self.lines
        pay = self.split.five_of_a_kind
        line = PayLine(Hand.FIVE_OF_A_KIND, "Five of a kind", pay, pay)
        kept = [existing for existing in self.lines if existing.hand is not Hand.FIVE_OF_A_KIND]
        place = next((i for i, other in enumerate(kept) if other.pays_at_max < pay), len(kept))
        return (*kept[:place], line, *kept[place:])

    def pay(self, hand: Hand, coins: int) -> int:
        """What `hand` pays in all on a line of `coins` coins (10: the Split Card feature, paid
        as for 5 coins with the five-of-a-kind line)."""
        split = coins == SPLIT_COINS
        for line in self.lines_for(split):
            if line.hand is hand:
                return MAX_COINS * line.pays_at_max if split else coins * per_coin(line, coins)
        return 0


def per_coin(line: PayLine, coins: int) -> int:
    return line.pays_at_max if coins >= MAX_COINS else line.pays


def _line(hand: Hand, label: str, pays: int, pays_at_max: int | None = None) -> PayLine:
    return PayLine(hand, label, pays, pays if pays_at_max is None else pays_at_max)


JACKS_OR_BETTER_9_6 = PayTable(
    name="jacks-9-6",
    title="Jacks or Better 9/6",
    lines=(
        _line(Hand.ROYAL_FLUSH, "Royal flush", 250, 800),
        _line(Hand.STRAIGHT_FLUSH, "Straight flush", 50),
        _line(Hand.FOUR_OF_A_KIND, "Four of a kind", 25),
        _line(Hand.FULL_HOUSE, "Full house", 9),
        _line(Hand.FLUSH, "Flush", 6),
        _line(Hand.STRAIGHT, "Straight", 4),
        _line(Hand.THREE_OF_A_KIND, "Three of a kind", 3),
        _line(Hand.TWO_PAIR, "Two pair", 2),
        _line(Hand.JACKS_OR_BETTER, "Jacks or better", 1),
    ),
    split=SplitFeature(five_of_a_kind=200),
)

DEUCES_WILD = PayTable(
    name="deuces-wild",
    title="Deuces Wild (full pay)",
    lines=(
        _line(Hand.ROYAL_FLUSH, "Natural royal flush", 250, 800),
        _line(Hand.FOUR_DEUCES, "Four deuces", 200),
        _line(Hand.WILD_ROYAL_FLUSH, "Wild royal flush", 25),
        _line(Hand.FIVE_OF_A_KIND, "Five of a kind", 15),
        _line(Hand.STRAIGHT_FLUSH, "Straight flush", 9),
        _line(Hand.FOUR_OF_A_KIND, "Four of a kind", 5),
        _line(Hand.FULL_HOUSE, "Full house", 3),
        _line(Hand.FLUSH, "Flush", 2),
        _line(Hand.STRAIGHT, "Straight", 2),
        _line(Hand.THREE_OF_A_KIND, "Three of a kind", 1),
    ),
    split=SplitFeature(five_of_a_kind=15),
    wild_rank="2",
)

DOUBLE_DOUBLE_BONUS_9_6 = PayTable(
    name="double-double-bonus-9-6",
    title="Double Double Bonus 9/6",
    lines=(
        _line(Hand.ROYAL_FLUSH, "Royal flush", 250, 800),
        _line(Hand.FOUR_ACES_WITH_2_3_4, "Four aces with a 2, 3 or 4", 400),
        _line(Hand.FOUR_2S_3S_4S_WITH_A_2_3_4, "Four 2s, 3s or 4s with an A, 2, 3 or 4", 160),
        _line(Hand.FOUR_ACES, "Four aces", 160),
        _line(Hand.FOUR_2S_3S_4S, "Four 2s, 3s or 4s", 80),
        _line(Hand.FOUR_5S_THROUGH_KINGS, "Four 5s through kings", 50),
        _line(Hand.STRAIGHT_FLUSH, "Straight flush", 50),
        _line(Hand.FULL_HOUSE, "Full house", 9),
        _line(Hand.FLUSH, "Flush", 6),
        _line(Hand.STRAIGHT, "Straight", 4),
        _line(Hand.THREE_OF_A_KIND, "Three of a kind", 3),
        _line(Hand.TWO_PAIR, "Two pair", 1),
        _line(Hand.JACKS_OR_BETTER, "Jacks or better", 1),
    ),
    split=SplitFeature(five_of_a_kind=400),
)

PAYTABLES: dict[str, PayTable] = {
    table.name: table for table in (JACKS_OR_BETTER_9_6, DEUCES_WILD, DOUBLE_DOUBLE_BONUS_9_6)
}
