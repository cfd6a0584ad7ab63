"""Equity of any deal shape, exact or Monte Carlo, in chunks of bounded size.

A deal shape: each player's known hole cards out of `hole_size`, the known board out of
`board_size`, dead cards, and how hands score (`Scoring`). When every hole card is known and
few enough boards remain, every board is enumerated; otherwise each trial deals the missing
board and hole cards at random (`subsets.Deals`). Either way chunks of at most `CHUNK` deals
are scored with `keyed` and only per-player sums are kept (`Tally`), so memory is the same
for a thousand samples or a million.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from services.ranking.keyed import high_classes, key_bias, low_values, ranks_held, wild_values
from services.ranking.subsets import (
    Deals,
    Keys,
    Masks,
    combination_chunks,
    group_encodings,
    key_of,
    mask_of,
)

DEFAULT_MAX_EXACT = 2_000_000
CHUNK = 1 << 14
# Deals done so far -> whether to stop now (checked between chunks).
StopCheck = Callable[[int], bool]
_RANK_OF_BIT = {1 << r: r for r in range(13)}
_SINGLE_RANK = np.array([_RANK_OF_BIT.get(m, 0) for m in range(1 << 13)], dtype=np.intp)


class BudgetExceeded(Exception):
    """An exact enumeration was stopped before it ended: there is no exact answer to give."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"stopped after {done:,} of {total:,} exact deals")
        self.done = done
        self.total = total


@dataclass(frozen=True, slots=True)
class Scoring:
    """How a hand of `hand_size` cards (hole plus board) scores at showdown."""

    hand_size: int
    low: bool = False  # the pot splits high / eight-or-better low
    board_rank_wild: bool = False  # Spit in the Ocean: the board card's rank is wild
    wild: int = 0  # more wild cards, as a suit-rank mask (with board_rank_wild)
    five_kind_below: bool = False


@dataclass(frozen=True, slots=True)
class PlayerEquity:
    win: float
    tie: float
    lose: float
    equity: float
    standard_error: float


@dataclass(frozen=True, slots=True)
class EquityResult:
    players: tuple[PlayerEquity, ...]
    exact: bool
    trials: int
    # False when the caller stopped a Monte Carlo run early: `trials` is what was done.
    complete: bool = True


class Tally:
    """Per-player sums over the deals scored so far."""

    def __init__(self, players: int) -> None:
        self.trials = 0
        self.share = np.zeros(players)
        self.share_squared = np.zeros(players)
        self.wins = np.zeros(players, dtype=np.int64)
        self.losses = np.zeros(players, dtype=np.int64)

    def add(self, shares: npt.NDArray[np.float64]) -> None:
        """Pot shares of every player (rows) in every deal (columns)."""
        self.trials += shares.shape[1]
        self.share += shares.sum(axis=1)
        self.share_squared += np.square(shares).sum(axis=1)
        self.wins += np.count_nonzero(shares == 1.0, axis=1)
        self.losses += np.count_nonzero(shares == 0.0, axis=1)

    def add_heads_up(self, high: npt.NDArray[np.int32]) -> None:
        """Two players, the pot to the better hand: three passes instead of the general ten."""
        difference = high[0] - high[1]
        n = len(difference)
        first = np.count_nonzero(difference > 0)
        ties = np.count_nonzero(difference == 0)
        second = n - first - ties
        self.trials += n
        self.share += (first + 0.5 * ties, second + 0.5 * ties)
        self.share_squared += (first + 0.25 * ties, second + 0.25 * ties)
        self.wins += (first, second)
        self.losses += (second, first)

    def add_winners(self, best: npt.NDArray[np.bool_]) -> None:
        """The same for a pot that goes whole to the best hands (`best`: players x deals):
        each winner's share is 1 / winners, so sums are products with that vector."""
        winners = np.count_nonzero(best, axis=0)
        inverse = 1.0 / winners
        as_float = best.astype(np.float64)
        self.trials += best.shape[1]
        self.share += as_float @ inverse
        self.share_squared += as_float @ np.square(inverse)
        self.wins += np.count_nonzero(best & (winners == 1), axis=1)
        self.losses += best.shape[1] - np.count_nonzero(best, axis=1)

    def result(self, exact: bool, complete: bool = True) -> EquityResult:
        n = self.trials
        players = []
        for i in range(len(self.share)):
            mean = float(self.share[i]) / n
            error = 0.0
            if not exact and n > 1:
                variance = max(0.0, (float(self.share_squared[i]) - n * mean * mean) / (n - 1))
                error = math.sqrt(variance / n)
            win, lose = int(self.wins[i]) / n, int(self.losses[i]) / n
            players.append(PlayerEquity(win, max(0.0, 1.0 - win - lose), lose, mean, error))
        return EquityResult(tuple(players), exact, n, complete)


def _best(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    best: npt.NDArray[np.bool_] = values == values.max(axis=0)
    return best


def _split(values: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    best = _best(values)
    shares: npt.NDArray[np.float64] = best / best.sum(axis=0)
    return shares


Rows = npt.NDArray[np.int32]


def player_values(
    scoring: Scoring, keys: list[Keys], masks: list[Masks], board_masks: Masks
) -> tuple[Rows, Rows | None]:
    """Every player's high (rows; classes or wild values, comparable within the scoring) and,
    in hi-lo, low values. Keys carry `key_bias` unless the scoring is wild."""
    high = np.empty((len(keys), len(board_masks)), dtype=np.int32)
    wild_ranks = None
    if scoring.board_rank_wild:
        wild_ranks = np.take(_SINGLE_RANK, ranks_held(board_masks).astype(np.intp))
    for row, (key, mask) in enumerate(zip(keys, masks, strict=True)):
        if wild_ranks is not None:
            high[row] = wild_values(key, mask, wild_ranks, scoring.wild, scoring.five_kind_below)
        else:
            high[row] = high_classes(key, mask, scoring.hand_size)
    low = np.vstack([low_values(m) for m in masks]) if scoring.low else None
    return high, low


def score(tally: Tally, high: npt.NDArray[np.int32], low: npt.NDArray[np.int32] | None) -> None:
    """Add one chunk's pot shares to `tally` (players are rows, deals columns)."""
    if low is None:
        if len(high) == 2:
            tally.add_heads_up(high)
        else:
            tally.add_winners(_best(high))
        return
    high_share = _split(high)
    has_low = low.max(axis=0) > 0
    tally.add(np.where(has_low, 0.5 * high_share + 0.5 * _split(low), high_share))


def _score(tally: Tally, scoring: Scoring, keys: list[Keys], masks: list[Masks],
           board_masks: Masks) -> None:  # fmt: skip
    score(tally, *player_values(scoring, keys, masks, board_masks))


def sample_equity(
    holes: Sequence[Sequence[int]],
    hole_size: int,
    board: Sequence[int],
    board_size: int,
    dead: Sequence[int],
    scoring: Scoring,
    *,
    samples: int,
    seed: int,
    max_exact: int = DEFAULT_MAX_EXACT,
    should_stop: StopCheck | None = None,
) -> EquityResult:
    """Equity of every player; cards are numbers 0..51, already checked to be distinct."""
    known = [c for group in (*holes, board, dead) for c in group]
    unavailable = set(known)
    remaining = [c for c in range(52) if c not in unavailable]
    missing_board = board_size - len(board)
    missing_holes = [hole_size - len(h) for h in holes]
    hole_keys = [np.int32(key_of(list(h))) for h in holes]
    hole_masks = [np.uint64(mask_of(list(h))) for h in holes]
    bias = 0 if scoring.board_rank_wild else key_bias(scoring.hand_size)
    board_key = np.int32(key_of(list(board)) + bias)
    board_mask = np.uint64(mask_of(list(board)))
    tally = Tally(len(holes))
    total = math.comb(len(remaining), missing_board)
    if not any(missing_holes) and total <= max_exact:
        for rows in combination_chunks(remaining, missing_board, CHUNK):
            keys, masks = group_encodings(rows)
            keys += board_key
            masks |= board_mask
            _score(tally, scoring, [keys + k for k in hole_keys],
                   [masks | m for m in hole_masks], masks)  # fmt: skip
            if tally.trials < total and should_stop is not None and should_stop(tally.trials):
                raise BudgetExceeded(tally.trials, total)
        return tally.result(exact=True)
    deals = Deals(np.random.default_rng(seed), mask_of(known))
    sizes = [missing_board] + [m for m in missing_holes if m]
    while tally.trials < samples:
        count = min(CHUNK, samples - tally.trials)
        groups = iter(deals.deal(sizes, count))
        keys, masks = next(groups)
        keys += board_key
        masks |= board_mask
        player_keys, player_masks = [], []
        for missing, key, mask in zip(missing_holes, hole_keys, hole_masks, strict=True):
            if missing:
                extra_keys, extra_masks = next(groups)
                player_keys.append(keys + extra_keys + key)
                player_masks.append(masks | extra_masks | mask)
            else:
                player_keys.append(keys + key)
                player_masks.append(masks | mask)
        _score(tally, scoring, player_keys, player_masks, masks)
        if tally.trials < samples and should_stop is not None and should_stop(tally.trials):
            return tally.result(exact=False, complete=False)
    return tally.result(exact=False)
