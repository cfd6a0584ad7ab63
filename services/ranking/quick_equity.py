"""Small Monte Carlo equity runs, one deal at a time, for decisions that need an answer now.

The vectorised Monte Carlo (`sampling`, `draw_equity`) is built for large runs: per call it
makes a few hundred NumPy calls, a fixed cost of 0.3-1 ms whether it deals a hundred trials
or a hundred thousand. A bot deciding a bet needs a few hundred trials in well under a
millisecond. Here each trial deals its cards by a partial Fisher-Yates shuffle driven by a
xorshift generator and scores every hand with the single-hand evaluators of `fast`; compiled
with mypyc together with `fast` (tools/build_ranking.py), a trial costs a fraction of a
microsecond.

The deal shapes are those of the poker games: hands of five, six or seven natural cards
(best five), eight-or-better hi-lo from seven cards, and five-card hands where the first
board card's rank is wild (Spit in the Ocean). `supports` says whether a shape is one of
them; callers keep the vectorised path for anything else.
"""

from __future__ import annotations

from typing import Final

from services.ranking.encoding import FAST_INTS, NUM_RANKS, wild_encoding
from services.ranking.fast import (
    LOW_TABLES,
    eval5_ints,
    eval6_ints,
    eval7_ints,
    eval_wild5_ints,
    eval_wild5_ints_five_kind_below,
)
from services.ranking.tables import LOW_BIT_OF_RANK

HIGH: Final = 0  # best five of the hand's 5, 6 or 7 natural cards
HIGH_LOW: Final = 1  # seven cards, the pot split high / eight-or-better low
WILD: Final = 2  # five cards, every card of the first board card's rank wild
WILD_BELOW: Final = 3  # as WILD, five of a kind ranked just below a straight flush

_FAST: Final = FAST_INTS
_LOW_BIT: Final = tuple(LOW_BIT_OF_RANK[i % NUM_RANKS] for i in range(52))
_LOW: Final = LOW_TABLES[0]
# Per wild rank, the card integers `eval_wild5_ints` takes.
_WILD_INTS: Final = tuple(
    wild_encoding(frozenset(r + NUM_RANKS * s for s in range(4))) for r in range(NUM_RANKS)
)
_MASK32: Final = 0xFFFFFFFF


def supports(mode: int, hand_size: int) -> bool:
    """Whether hands of `hand_size` cards (hole plus board) score in `mode` here."""
    if mode == HIGH:
        return 5 <= hand_size <= 7
    if mode == HIGH_LOW:
        return hand_size == 7
    return mode in (WILD, WILD_BELOW) and hand_size == 5


def _high(hand: list[int], n: int) -> int:
    """Best five of the first `n` (5..7) card numbers of `hand`."""
    # Card numbers stay small ints in the lists (no boxing when cards move); the evaluator
    # integers are read from the tuple straight into the call.
    f = _FAST
    if n == 7:
        return eval7_ints(
            f[hand[0]], f[hand[1]], f[hand[2]], f[hand[3]], f[hand[4]], f[hand[5]], f[hand[6]]
        )
    if n == 6:
        return eval6_ints(f[hand[0]], f[hand[1]], f[hand[2]], f[hand[3]], f[hand[4]], f[hand[5]])
    return eval5_ints(f[hand[0]], f[hand[1]], f[hand[2]], f[hand[3]], f[hand[4]])


def _wild(hand: list[int], below: bool) -> int:
    """Five card numbers, every card of the first one's rank (the spit card's) wild."""
    w = _WILD_INTS[hand[0] % NUM_RANKS]
    if below:
        return eval_wild5_ints_five_kind_below(
            w[hand[0]], w[hand[1]], w[hand[2]], w[hand[3]], w[hand[4]]
        )
    return eval_wild5_ints(w[hand[0]], w[hand[1]], w[hand[2]], w[hand[3]], w[hand[4]])


def _low(hand: list[int], n: int) -> int:
    """Eight-or-better low of the first `n` card numbers of `hand` (0: none)."""
    bits = 0
    for i in range(n):
        bits |= _LOW_BIT[hand[i]]
    return _LOW[bits]


def keep_equities(
    keeps: list[list[int]],
    hole_size: int,
    board: list[int],
    board_size: int,
    known: list[int],
    opponents: int,
    opponent_hole: int,
    mode: int,
    samples: int,
    seed: int,
) -> list[float]:
    """Player 0's expected share of the pot for each keep-set against `opponents` random
    hands of `opponent_hole` cards, all keep-sets on the same deals.

    Cards are numbers 0..51. Each keep-set is completed to `hole_size` with the trial's
    replacement cards (the first ones dealt), the board to `board_size`; `known` lists every
    card out of the deck (the whole current hand, the board, dead cards). Ties share. The
    deck must hold every card a trial deals."""
    out = [0.0] * len(keeps)
    if not keeps:
        return out
    taken = [False] * 52
    for card in known:
        taken[card] = True
    for keep in keeps:
        for card in keep:
            taken[card] = True
    for card in board:
        taken[card] = True
    most = 0
    for keep in keeps:
        if hole_size - len(keep) > most:
            most = hole_size - len(keep)
    missing_board = board_size - len(board)
    wild = mode in (WILD, WILD_BELOW)
    below = mode == WILD_BELOW
    split = mode == HIGH_LOW
    deck = [card for card in range(52) if not taken[card]]
    need = most + missing_board + opponents * opponent_hole
    if need > len(deck):
        raise ValueError(f"a trial needs {need} cards but the deck holds {len(deck)}")
    n = opponent_hole + board_size
    mine_n = hole_size + board_size
    # Hands start with the board, so the wild rank is always the first card's.
    hand = [0] * max(n, mine_n)
    full_board = [0] * board_size
    for i, card in enumerate(board):
        full_board[i] = card
    size = len(deck)
    state = (seed & _MASK32) or 0x9E3779B9
    sums = [0.0] * len(keeps)
    for _ in range(samples):
        # Partial Fisher-Yates: deck[:need] is this trial's deal; each 32-bit xorshift step
        # places two cards from its 16-bit halves (a bias below 52 / 65,536 per card).
        i = 0
        while i < need:
            state ^= (state << 13) & _MASK32
            state ^= state >> 17
            state ^= (state << 5) & _MASK32
            j = i + (((state & 0xFFFF) * (size - i)) >> 16)
            deck[i], deck[j] = deck[j], deck[i]
            i += 1
            if i < need:
                j = i + (((state >> 16) * (size - i)) >> 16)
                deck[i], deck[j] = deck[j], deck[i]
                i += 1
        for i in range(missing_board):
            full_board[len(board) + i] = deck[most + i]
        for i in range(board_size):
            hand[i] = full_board[i]
        best_high = -1
        high_ties = 0
        best_low = 0
        low_ties = 0
        at = most + missing_board
        for _o in range(opponents):
            for i in range(opponent_hole):
                hand[board_size + i] = deck[at + i]
            at += opponent_hole
            value = _wild(hand, below) if wild else _high(hand, n)
            if value > best_high:
                best_high, high_ties = value, 1
            elif value == best_high:
                high_ties += 1
            if split:
                low = _low(hand, n)
                if low > best_low:
                    best_low, low_ties = low, 1
                elif low == best_low and low:
                    low_ties += 1
        for k, keep in enumerate(keeps):
            for i, card in enumerate(keep):
                hand[board_size + i] = card
            for i in range(hole_size - len(keep)):
                hand[board_size + len(keep) + i] = deck[i]
            value = _wild(hand, below) if wild else _high(hand, mine_n)
            share = 0.0
            if value > best_high:
                share = 1.0
            elif value == best_high:
                share = 1.0 / (high_ties + 1)
            if split:
                low = _low(hand, mine_n)
                if low or best_low:
                    low_share = 0.0
                    if low > best_low:
                        low_share = 1.0
                    elif low == best_low:
                        low_share = 1.0 / (low_ties + 1)
                    share = 0.5 * share + 0.5 * low_share
            sums[k] += share
    for k in range(len(keeps)):
        out[k] = sums[k] / samples
    return out
