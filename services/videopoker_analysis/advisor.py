"""The optimal-hold advisor: the exact expected win of all 32 holds of one dealt hand.

Exact: each hold's value is the total over every possible draw from the 47 undealt cards
(and, with the Split Card feature, over where the undealt split card is and its second card)
divided by their number, read from tables that sum every five-card hand once
(services.videopoker_analysis.kernels), so the answer equals the enumeration of the draws
(tests/unit/videopoker_analysis checks it against brute force). The tables are built once per
pay table (`warm`); a query is then a few hundred array reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from services.games.cards import RANKS as CARD_RANKS
from services.games.cards import SUITS as CARD_SUITS
from services.games.videopoker.paytables import COINS, MAX_COINS, PAYTABLES, SPLIT_COINS
from services.games.videopoker.split import OFFSETS, split_parts
from services.videopoker_analysis.combos import RANKS
from services.videopoker_analysis.kernels import (
    STUB_WEIGHT,
    split_totals,
    standard_totals,
    stub_totals,
)
from services.videopoker_analysis.split_tables import split_tables
from services.videopoker_analysis.subsets import DRAWS, MASKS, mask_positions
from services.videopoker_analysis.tables import stub_sums, tables


class AdviceError(ValueError):
    """A hand or choice the advisor cannot read; the message says what is wrong."""


@dataclass(frozen=True)
class HoldValue:
    positions: tuple[int, ...]  # held positions, ascending
    expected_win: Fraction  # coins won per line, on average over the draws

    def per_coin(self, coins: int) -> Fraction:
        """Expected return per coin bet."""
        return self.expected_win / coins


@dataclass(frozen=True)
class Advice:
    cards: tuple[str, ...]
    paytable: str
    coins: int
    holds: tuple[HoldValue, ...]  # all 32, best first (ties: the hold listed by lower mask)

    @property
    def best(self) -> HoldValue:
        return self.holds[0]


def card_index(text: str) -> int:
    if len(text) != 2 or text[0] not in CARD_RANKS or text[1] not in CARD_SUITS:
        raise AdviceError(f"{text!r} is not a card: rank ({CARD_RANKS}) then suit ({CARD_SUITS})")
    return CARD_SUITS.index(text[1]) * RANKS + CARD_RANKS.index(text[0])


@dataclass(frozen=True)
class Dealt:
    cards: tuple[int, ...]  # base card indexes, by position
    split_position: int  # -1: no split card dealt
    offset_index: int  # the dealt split card's second card (index into OFFSETS)


def read_hand(cards: Sequence[str], coins: int) -> Dealt:
    if len(cards) != 5:
        raise AdviceError(f"a dealt hand has 5 cards, got {len(cards)}")
    bases: list[int] = []
    split_position, offset_index = -1, 0
    for position, text in enumerate(cards):
        parts = split_parts(text)
        if len(parts) > 2:
            raise AdviceError(f"{text!r}: a split card is written base|second, e.g. Kh|Qh")
        base = card_index(parts[0])
        if len(parts) == 2:
            if coins != SPLIT_COINS:
                raise AdviceError("a split card is dealt only with the feature (10 coins a line)")
            if split_position >= 0:
                raise AdviceError("a round has one split card; this hand shows two")
            second = card_index(parts[1])
            offset = (second % RANKS - base % RANKS + 1) % RANKS - 1
            if second // RANKS != base // RANKS or offset not in OFFSETS:
                raise AdviceError(
                    f"{text!r}: a split card's second card has its suit and a rank equal or "
                    "one away"
                )
            split_position, offset_index = position, OFFSETS.index(offset)
        if base in bases:
            raise AdviceError(f"card {parts[0]} is dealt twice")
        bases.append(base)
    return Dealt(tuple(bases), split_position, offset_index)


def _coins_ok(paytable: str, coins: int) -> None:
    if paytable not in PAYTABLES:
        raise AdviceError(f"unknown pay table {paytable!r}: use one of {', '.join(PAYTABLES)}")
    if coins not in (*COINS, SPLIT_COINS):
        raise AdviceError(f"coins must be 1 to 5, or 10 for the Split Card feature, not {coins}")


def warm(paytable: str, coins: int) -> None:
    """Build the tables a query at `coins` needs (seconds, once per process)."""
    _coins_ok(paytable, coins)
    if coins == SPLIT_COINS:
        tables(paytable, True).pay_sums(SPLIT_COINS)
        split_tables(paytable)
        stub_sums(paytable)
    else:
        tables(paytable, False).pay_sums(coins)


def hold_wins(dealt: Dealt, paytable: str, coins: int) -> list[Fraction]:
    """Expected coins won per line for each hold mask (bit i: position i held)."""
    deal = np.array([dealt.cards], dtype=np.int64)
    if coins != SPLIT_COINS:
        sums, own = tables(paytable, False).pay_sums(coins)
        totals = standard_totals(sums, own, deal)[0]
        return [Fraction(int(totals[m]) * coins, int(DRAWS[m])) for m in range(MASKS)]
    sums, own = tables(paytable, True).pay_sums(coins)
    split = split_tables(paytable)
    if dealt.split_position < 0:
        gain_sums, gain = stub_sums(paytable)
        totals = stub_totals(sums, own, gain_sums, gain, split, deal)[0]
        return [
            Fraction(int(totals[m]) * MAX_COINS, STUB_WEIGHT * int(DRAWS[m])) for m in range(MASKS)
        ]
    position = dealt.split_position
    base = deal[:, position]
    others = np.delete(deal, position, axis=1)
    plain = standard_totals(sums, own, deal)[0]
    held = split_totals(split, others, base, np.array([dealt.offset_index]))[0]
    wins = []
    for mask in range(MASKS):
        if mask >> position & 1:
            rest = (mask & ((1 << position) - 1)) | (mask >> (position + 1)) << position
            total = int(held[rest])
        else:
            total = int(plain[mask])
        wins.append(Fraction(total * MAX_COINS, int(DRAWS[mask])))
    return wins


def advise(cards: Sequence[str], paytable: str, coins: int = MAX_COINS) -> Advice:
    """Every hold of `cards` (five, "Kh|Qh" for a dealt split card) with its expected win."""
    _coins_ok(paytable, coins)
    dealt = read_hand(cards, coins)
    wins = hold_wins(dealt, paytable, coins)
    order = sorted(range(MASKS), key=lambda mask: (-wins[mask], mask))
    holds = tuple(HoldValue(mask_positions(mask), wins[mask]) for mask in order)
    return Advice(tuple(cards), paytable, coins, holds)
