"""Win/tie/lose probabilities for hold'em, hold'em hi-lo and Spit in the Ocean.

Exact when every player's cards are known and the boards left to deal are few enough
(`max_exact`, two million by default: heads-up hold'em pre-flop is 1,712,304); otherwise a
seeded Monte Carlo whose per-player standard error is reported. A player's `equity` is the
expected share of the pot (ties and split halves counted), `win` the chance of taking the
whole pot alone, `lose` of taking nothing, `tie` of taking part of it.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from services.games.cards import Card
from services.ranking.batch import eval7_batch
from services.ranking.encoding import NUM_RANKS, wild_encoding
from services.ranking.fast import (
    LOW_TABLES,
    eval_wild5_ints,
    eval_wild5_ints_five_kind_below,
)
from services.ranking.hands import HandError, check_distinct
from services.ranking.tables import LOW_BIT_OF_RANK

Matrix = npt.NDArray[np.int64]


class EquityGame(enum.Enum):
    HOLDEM = "holdem"
    HOLDEM_HI_LO = "holdem-hi-lo"
    SPIT_IN_THE_OCEAN = "spit-in-the-ocean"


HOLE_CARDS = {EquityGame.HOLDEM: 2, EquityGame.HOLDEM_HI_LO: 2, EquityGame.SPIT_IN_THE_OCEAN: 4}
BOARD_CARDS = {EquityGame.HOLDEM: 5, EquityGame.HOLDEM_HI_LO: 5, EquityGame.SPIT_IN_THE_OCEAN: 1}
DEFAULT_MAX_EXACT = 2_000_000


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


_LOW_BITS = np.array([LOW_BIT_OF_RANK[i % NUM_RANKS] for i in range(52)], dtype=np.uint8)
_LOW_TABLE = np.array(LOW_TABLES[0], dtype=np.int64)


def _check(game: EquityGame, players: Sequence[Sequence[Card]], board: Sequence[Card],
           dead: Sequence[Card]) -> None:  # fmt: skip
    if len(players) < 2:
        raise HandError("equity needs at least two players")
    hole = HOLE_CARDS[game]
    for seat, cards in enumerate(players):
        if len(cards) > hole:
            raise HandError(f"player {seat} has {len(cards)} cards; {game.value} deals {hole}")
    if len(board) > BOARD_CARDS[game]:
        raise HandError(f"{game.value} has at most {BOARD_CARDS[game]} board cards")
    check_distinct(board, dead, *players)
    needed = len(players) * hole + BOARD_CARDS[game]
    if needed > 52 - len(dead):
        raise HandError(f"not enough cards for {len(players)} players")


def equity(
    game: EquityGame,
    players: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
    *,
    samples: int = 20_000,
    seed: int = 0,
    max_exact: int = DEFAULT_MAX_EXACT,
    wild_cards: Collection[Card] = (),
    five_kind_below: bool = False,
) -> EquityResult:
    """Each player's chances; unknown hole cards are dealt at random (Monte Carlo)."""
    _check(game, players, board, dead)
    hole = HOLE_CARDS[game]
    known = {c.index for group in (*players, board, dead) for c in group}
    remaining = np.array([i for i in range(52) if i not in known], dtype=np.uint8)
    missing_hole = [hole - len(p) for p in players]
    missing_board = BOARD_CARDS[game] - len(board)
    exact = sum(missing_hole) == 0 and math.comb(len(remaining), missing_board) <= max_exact
    if exact:
        picks = np.fromiter(
            itertools.chain.from_iterable(
                itertools.combinations(range(len(remaining)), missing_board)
            ),
            dtype=np.uint8,
            count=math.comb(len(remaining), missing_board) * missing_board,
        ).reshape(-1, missing_board)
        deals = remaining[picks]
    else:
        rng = np.random.default_rng(seed)
        unknown = sum(missing_hole) + missing_board
        order = np.argsort(rng.random((samples, len(remaining))), axis=1)[:, :unknown]
        deals = remaining[order]
    trials = len(deals)
    # Assemble each player's cards per trial: known hole, dealt hole, then the full board.
    dealt_board = np.hstack([np.tile([c.index for c in board], (trials, 1)).astype(np.uint8),
                             deals[:, sum(missing_hole):]])  # fmt: skip
    hands = []
    offset = 0
    for seat, cards in enumerate(players):
        mine = np.tile([c.index for c in cards], (trials, 1)).astype(np.uint8)
        extra = deals[:, offset : offset + missing_hole[seat]]
        offset += missing_hole[seat]
        hands.append(np.hstack([mine, extra, dealt_board]))
    shares = _shares(game, hands, wild_cards, five_kind_below)
    return _summarise(shares, exact)


def _shares(game: EquityGame, hands: list[npt.NDArray[np.uint8]], wild_cards: Collection[Card],
            five_kind_below: bool) -> npt.NDArray[np.float64]:  # fmt: skip
    """Pot share of every player (rows) in every trial (columns)."""
    if game is EquityGame.SPIT_IN_THE_OCEAN:
        high = _spit_values(hands, wild_cards, five_kind_below)
    else:
        high = np.vstack([eval7_batch(h) for h in hands]).astype(np.int64)
    high_share = _split(high)
    if game is not EquityGame.HOLDEM_HI_LO:
        return high_share
    low = np.vstack([_low_values(h) for h in hands])
    has_low = low.max(axis=0) > 0
    low_share = _split(low)
    return np.where(has_low, 0.5 * high_share + 0.5 * low_share, high_share)


def _split(values: Matrix) -> npt.NDArray[np.float64]:
    best = values == values.max(axis=0)
    shares: npt.NDArray[np.float64] = best / best.sum(axis=0)
    return shares


def _low_values(hands: npt.NDArray[np.uint8]) -> Matrix:
    mask = np.bitwise_or.reduce(_LOW_BITS[hands], axis=1)
    return _LOW_TABLE[mask]


def _spit_values(hands: list[npt.NDArray[np.uint8]], wild_cards: Collection[Card],
                 five_kind_below: bool) -> Matrix:  # fmt: skip
    """Spit in the Ocean: four hole cards plus the spit, whose rank is wild."""
    evaluate = eval_wild5_ints_five_kind_below if five_kind_below else eval_wild5_ints
    extra = frozenset(c.index for c in wild_cards)
    spits = hands[0][:, -1].tolist()
    rows = [h.tolist() for h in hands]
    out = np.empty((len(hands), len(spits)), dtype=np.int64)
    for t, spit in enumerate(spits):
        rank = spit % NUM_RANKS
        enc = wild_encoding(extra | frozenset(rank + NUM_RANKS * s for s in range(4)))
        for p, player_rows in enumerate(rows):
            a, b, c, d, e = player_rows[t]
            out[p, t] = evaluate(enc[a], enc[b], enc[c], enc[d], enc[e])
    return out


def _summarise(shares: npt.NDArray[np.float64], exact: bool) -> EquityResult:
    trials = shares.shape[1]
    players = []
    for row in shares:
        mean = float(row.mean())
        error = 0.0 if exact or trials < 2 else float(row.std(ddof=1) / math.sqrt(trials))
        win = float(np.mean(row == 1.0))
        lose = float(np.mean(row == 0.0))
        tie = float(np.mean((row > 0.0) & (row < 1.0)))
        players.append(PlayerEquity(win, tie, lose, mean, error))
    return EquityResult(tuple(players), exact, trials)
