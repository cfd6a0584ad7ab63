"""Hand strength for the policies: a preflop table, made-hand strength, Monte Carlo equity.

Ranking itself comes from the ranking library through the small `Ranker` protocol (see
`ranker.py`); this module only decides *what* to rank. Equity is estimated against random
hands for every opponent still in, with the cards the bot has seen (its own, the board, open
discards, shown hands) removed from the deck, by the library's vectorised Monte Carlo.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Protocol

from services.bots import preflop
from services.bots.view import BotView, Variant
from services.ranking import quick_equity
from services.ranking.draw_equity import keep_equities as library_keep_equities
from services.ranking.sampling import Scoring, sample_equity

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)
_INDEX = {card: i for i, card in enumerate(DECK)}  # the ranking library's card numbers
CATEGORY_SHIFT = 20  # evaluator values: category strength << 20 | five 4-bit ranks
# A decision's equity is dealt in rounds of ROUND deals, and stops once every line the
# decision draws lies more than Z standard errors from the estimate.
ROUND = 40
Z = 3.0


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


def _scoring(view: BotView, hand_size: int, board_total: int) -> Scoring:
    return Scoring(
        hand_size=hand_size + board_total,
        low=view.variant is Variant.HOLDEM_HILO,
        board_rank_wild=view.variant is Variant.SPIT,
        five_kind_below=not view.five_of_a_kind_high,
    )


def _quick_mode(scoring: Scoring) -> int:
    if scoring.board_rank_wild:
        return quick_equity.WILD_BELOW if scoring.five_kind_below else quick_equity.WILD
    return quick_equity.HIGH_LOW if scoring.low else quick_equity.HIGH


def _board_total(view: BotView) -> int:
    if view.variant is Variant.SPIT:
        return max(board_size(view), 1)  # the spit card names the wild rank
    return board_size(view)


def _opponents(view: BotView, unseen: int, missing: int) -> int:
    """Opponents still in, as many as the deck can deal hands to."""
    per_opponent = opponent_hole_count(view)
    opponents = max(1, view.opponents)
    room = 52 - unseen - missing
    return opponents if opponents * per_opponent <= room else max(1, room // per_opponent)


def equity(
    view: BotView,
    ranker: Ranker,
    rng: random.Random,
    samples: int,
    hole: Sequence[str] | None = None,
) -> float:
    """Expected share of the pot at showdown against random hands (ties and splits shared).

    `hole` overrides the bot's hand (to value a draw: the kept cards plus random replacements
    are dealt per sample when it is shorter than the current hand). Before the flop in
    hold'em the answer is the precomputed table's (`preflop`); otherwise `samples` deals
    seeded from `rng`, by the ranking library's one-deal-at-a-time Monte Carlo
    (`services.ranking.quick_equity`, compiled: tens of microseconds for a few hundred
    deals) where it knows the deal's shape, else by its vectorised one
    (`services.ranking.sampling`). (`ranker` ranks single hands for the policies; equity
    needs none.)
    """
    if hole is not None:
        return keep_equities(view, [hole], rng, samples)[0]
    tabled = preflop.lookup(view)
    if tabled is not None:
        return tabled
    if len(view.hole) == opponent_hole_count(view):
        return keep_equities(view, [view.hole], rng, samples)[0]
    mine = [_INDEX[c] for c in view.hole]
    hand_size = max(len(mine), opponent_hole_count(view))
    board_total = _board_total(view)
    board = [_INDEX[c] for c in view.board]
    seen = set(view.hole) | set(view.board) | set(view.dead)
    dead = [_INDEX[c] for c in seen.difference(view.hole, view.board)]
    missing = hand_size - len(mine) + board_total - len(board)
    opponents = _opponents(view, len(seen), missing)
    result = sample_equity(
        [mine] + [[] for _ in range(opponents)],
        hand_size,
        board,
        board_total,
        dead,
        _scoring(view, hand_size, board_total),
        samples=max(1, samples),
        seed=rng.getrandbits(64),
        max_exact=0,
    )
    return result.players[0].equity


def decision_equity(
    view: BotView,
    ranker: Ranker,
    rng: random.Random,
    samples: int,
    lines: Sequence[float],
) -> float:
    """`equity` for a decision that asks only on which side of each of `lines` the equity
    lies (raise above this, call above that): up to `samples` deals, in rounds of `ROUND`,
    stopping as soon as every line is more than `Z` standard errors from the estimate. A
    clear decision (trash facing a bet, the nuts) takes one round; one near a line takes
    them all, as `equity` would."""
    tabled = preflop.lookup(view)
    if tabled is not None:
        return tabled
    if len(view.hole) != opponent_hole_count(view) or _quick_shape(view) is None:
        return equity(view, ranker, rng, samples)
    total = 0.0
    done = 0
    while done < samples:
        count = min(ROUND, samples - done)
        total += keep_equities(view, [view.hole], rng, count)[0] * count
        done += count
        mean = total / done
        # A share's variance is at most p (1 - p) (ties and splits only lower it); the floor
        # keeps a run of all-wins or all-losses from looking certain after one round.
        error = math.sqrt(max(mean * (1.0 - mean), 0.01) / done)
        if all(abs(mean - line) > Z * error for line in lines):
            break
    return total / done


def _quick_args(
    view: BotView, keeps: Sequence[Sequence[str]]
) -> tuple[list[list[int]], int, list[int], int, list[int], int, int]:
    """`quick_equity`'s arguments for these keep-sets, up to the mode."""
    hole_size = len(view.hole)
    board_total = _board_total(view)
    seen = set(view.hole) | set(view.board) | set(view.dead)
    missing = hole_size - min(len(k) for k in keeps) + board_total - len(view.board)
    return (
        [[_INDEX[c] for c in keep] for keep in keeps],
        hole_size,
        [_INDEX[c] for c in view.board],
        board_total,
        [_INDEX[c] for c in seen],
        _opponents(view, len(seen), missing),
        opponent_hole_count(view),
    )


def _quick_shape(view: BotView) -> int | None:
    """The `quick_equity` mode for this deal shape, or None when only the vectorised Monte
    Carlo takes it."""
    hole_size = len(view.hole)
    per_opponent = opponent_hole_count(view)
    scoring = _scoring(view, max(hole_size, per_opponent), _board_total(view))
    mode = _quick_mode(scoring)
    if hole_size == per_opponent and quick_equity.supports(mode, scoring.hand_size):
        return mode
    return None


def keep_equities(
    view: BotView, keeps: Sequence[Sequence[str]], rng: random.Random, samples: int
) -> list[float]:
    """The equity of each keep-set (the kept cards plus random replacements up to the hand's
    size) against random hands, all measured on the same deals (`services.ranking.draw_equity`)."""
    hole_size = len(view.hole)
    board_total = _board_total(view)
    seen = set(view.hole) | set(view.board) | set(view.dead)
    missing = hole_size - min(len(k) for k in keeps) + board_total - len(view.board)
    per_opponent = opponent_hole_count(view)
    scoring = _scoring(view, max(hole_size, per_opponent), board_total)
    mode = _quick_shape(view)
    if mode is not None:
        return quick_equity.keep_equities(
            *_quick_args(view, keeps), mode, max(1, samples), rng.getrandbits(32)
        )
    return library_keep_equities(
        [[_INDEX[c] for c in keep] for keep in keeps],
        hole_size,
        [_INDEX[c] for c in view.board],
        board_total,
        [_INDEX[c] for c in seen],
        _opponents(view, len(seen), missing),
        per_opponent,
        scoring,
        samples=max(1, samples),
        seed=rng.getrandbits(64),
    )
