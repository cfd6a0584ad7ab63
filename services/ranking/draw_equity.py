"""Which cards to keep in a draw: the equity of each keep-set, all on the same deals.

Valuing keep-sets one Monte Carlo run each would deal (and score) the opponents and the
board once per keep-set, and compare them through independent noise. Here one run deals,
per trial, the replacement cards first (one at a time, as many as the smallest keep-set
needs), then the board and the opponents avoiding all of them; a keep-set of k cards takes
the first `hole_size - k` replacements. Every keep-set then sees the same opponents and
board (common random numbers: their differences are measured far more precisely than their
levels), and the opponents are scored once. Dealing replacements a keep-set does not use is
like burning random cards: it changes no other group's distribution.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from services.ranking.keyed import key_bias
from services.ranking.sampling import Scoring, Tally, player_values, score
from services.ranking.subsets import Deals, Keys, Masks, key_of, mask_of


def keep_equities(
    keeps: Sequence[Sequence[int]],
    hole_size: int,
    board: Sequence[int],
    board_size: int,
    known: Sequence[int],
    opponents: int,
    opponent_hole: int,
    scoring: Scoring,
    *,
    samples: int,
    seed: int,
) -> list[float]:
    """Player 0's equity against `opponents` random hands for each keep-set (card numbers,
    each completed to `hole_size` at random); `known`: every card out of the deck (the whole
    current hand, the board, dead cards)."""
    deals = Deals(np.random.default_rng(seed), mask_of(list(known)))
    bias = 0 if scoring.board_rank_wild else key_bias(scoring.hand_size)
    most = hole_size - min(len(keep) for keep in keeps)
    groups = deals.deal([1] * most + [board_size - len(board)] + [opponent_hole] * opponents,
                        samples)  # fmt: skip
    prefix_keys: list[Keys] = [np.zeros(samples, dtype=np.int32)]
    prefix_masks: list[Masks] = [np.zeros(samples, dtype=np.uint64)]
    for key, mask in groups[:most]:
        prefix_keys.append(prefix_keys[-1] + key)
        prefix_masks.append(prefix_masks[-1] | mask)
    board_keys, board_masks = groups[most]
    board_keys = board_keys + np.int32(key_of(list(board)) + bias)
    board_masks = board_masks | np.uint64(mask_of(list(board)))
    their_keys = [board_keys + key for key, _ in groups[most + 1 :]]
    their_masks = [board_masks | mask for _, mask in groups[most + 1 :]]
    their_high, their_low = player_values(scoring, their_keys, their_masks, board_masks)
    out = []
    for keep in keeps:
        drawn = hole_size - len(keep)
        key = board_keys + prefix_keys[drawn] + np.int32(key_of(list(keep)))
        mask = board_masks | prefix_masks[drawn] | np.uint64(mask_of(list(keep)))
        my_high, my_low = player_values(scoring, [key], [mask], board_masks)
        tally = Tally(opponents + 1)
        low = None if my_low is None or their_low is None else np.vstack([my_low, their_low])
        score(tally, np.vstack([my_high, their_high]), low)
        out.append(tally.result(exact=False).players[0].equity)
    return out
