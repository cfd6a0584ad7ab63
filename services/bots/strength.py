"""Hand strength for the policies: a preflop table, made-hand strength, Monte Carlo equity.

Ranking itself comes from the evaluator library through the small `Ranker` protocol (see
`ranker.py`); this module only decides *what* to rank. Equity is estimated against random
hands for every opponent still in, with the cards the bot has seen (its own, the board, open
discards, shown hands) removed from the deck.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from services.bots.view import BotView, Variant

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)
CATEGORY_SHIFT = 20  # evaluator values: category strength << 20 | five 4-bit ranks


class Ranker(Protocol):
    """Comparable hand values (higher wins) from the evaluator library."""

    def high(self, cards: Sequence[str], wild_rank: str | None, five_high: bool) -> int:
        """Best five-card high hand of `cards` (5..7 cards)."""
        ...

    def low(self, cards: Sequence[str]) -> int | None:
        """Best ace-to-five eight-or-better low (higher is better), or None when none qualifies."""
        ...

    def category(self, value: int) -> int:
        """1 (high card) .. 10 (five of a kind) for a value `high` returned."""
        ...


def preflop_strength(hole: Sequence[str]) -> float:
    """Bill Chen's formula for two hole cards, scaled to 0..1 (AA = 1.0, 72o about 0.0)."""
    a, b = sorted(hole[:2], key=lambda c: RANKS.index(c[0]), reverse=True)
    high, low = RANKS.index(a[0]), RANKS.index(b[0])
    points = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(high, (high + 2) / 2)
    if high == low:
        points = max(points * 2, 5.0)
    if a[1] == b[1]:
        points += 2
    gap = high - low - 1
    if high != low:
        points -= {0: 0, 1: 1, 2: 2, 3: 4}.get(gap, 5)
        if gap <= 1 and high < 10:
            points += 1
    return max(0.0, min(1.0, (points + 1) / 21))


def hand_cards(view: BotView) -> list[str]:
    """The cards the seat's hand plays with right now (hole plus community cards)."""
    return [*view.hole, *view.board]


def opponent_hole_count(view: BotView) -> int:
    if view.variant in (Variant.HOLDEM, Variant.HOLDEM_HILO):
        return 2
    if view.variant is Variant.SPIT:
        return 4
    return len(view.hole)  # six-card open draw: same number of cards as the bot holds


def board_size(view: BotView) -> int:
    return 5 if view.variant in (Variant.HOLDEM, Variant.HOLDEM_HILO) else len(view.board)


def equity(
    view: BotView,
    ranker: Ranker,
    rng: random.Random,
    samples: int,
    hole: Sequence[str] | None = None,
) -> float:
    """Expected share of the pot at showdown against random hands (ties and splits shared).

    `hole` overrides the bot's hand (to value a draw: the kept cards plus random replacements
    are dealt per sample when it is shorter than the current hand).
    """
    mine = list(view.hole if hole is None else hole)
    known = set(view.hole) | set(view.board) | set(view.dead)
    deck = [card for card in DECK if card not in known]
    opponents = max(1, view.opponents)
    per_opponent = opponent_hole_count(view)
    missing_board = max(0, board_size(view) - len(view.board))
    missing_mine = max(0, len(view.hole) - len(mine)) if hole is not None else 0
    need = missing_mine + missing_board + opponents * per_opponent
    if need > len(deck):
        opponents = max(1, (len(deck) - missing_mine - missing_board) // per_opponent)
        need = missing_mine + missing_board + opponents * per_opponent
    hilo = view.variant is Variant.HOLDEM_HILO
    total = 0.0
    for _ in range(samples):
        drawn = rng.sample(deck, need)
        my_cards = mine + drawn[:missing_mine]
        board = list(view.board) + drawn[missing_mine : missing_mine + missing_board]
        rest = drawn[missing_mine + missing_board :]
        hands = [my_cards] + [
            rest[i * per_opponent : (i + 1) * per_opponent] for i in range(opponents)
        ]
        total += _share(hands, board, view, ranker, hilo)
    return total / samples


def _share(
    hands: list[list[str]], board: list[str], view: BotView, ranker: Ranker, hilo: bool
) -> float:
    highs = [ranker.high(hand + board, view.wild_rank, view.five_of_a_kind_high) for hand in hands]
    best = max(highs)
    high_share = (highs[0] == best) / highs.count(best)
    if not hilo:
        return high_share
    lows = [ranker.low(hand + board) for hand in hands]
    qualifying = [low for low in lows if low is not None]
    if not qualifying:
        return high_share
    best_low = max(qualifying)
    low_share = (lows[0] == best_low) / lows.count(best_low)
    return (high_share + low_share) / 2
