"""Every five-card hand's pay line, vectorised, from the rules package's own classifier.

A five-card hand's line depends only on its rank multiset and on whether its natural cards
share a suit (services.games.videopoker.hands reads nothing else), so the pure classifier is
asked once for each of the 6,188 rank multisets, suited and not, and the answers fill a dense
table. Multisets with a rank five times (a split card's hands) are in it too.

The key is additive so that hands can be keyed without sorting: RANK_KEYS gives every
multiset of five ranks (a rank up to five times) a distinct sum below 472,726 (a greedy
search, each key the smallest that keeps every sum distinct; a test checks it), plus SPACE
when the natural cards are suited. Suitedness is read from the OR of each natural card's
suit bit: suited when at most one bit is set. Class ids are the ladder's line indexes, best
first; the last id is "nothing".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from services.games.videopoker.hands import Ladder, ladder, shape_of
from services.games.videopoker.paytables import MAX_COINS, PAYTABLES, Hand
from services.videopoker_analysis.combos import DECK, RANKS, Ints

RANK_KEYS: Ints = np.array(
    [0, 1, 6, 31, 108, 366, 926, 2286, 5733, 12905, 27316, 44676, 94545], dtype=np.int64
)
SPACE = 5 * int(RANK_KEYS[-1]) + 1


@dataclass(frozen=True)
class Classes:
    """One pay table's classes: `table[key]` is the line id of a five-card multiset."""

    rules: Ladder
    table: npt.NDArray[np.int8]
    hands: tuple[Hand, ...]  # by class id
    card_key: Ints  # RANK_KEYS of each card 0..51
    suit_bit: Ints  # 1 << suit of each card, 0 for a wild card

    @property
    def count(self) -> int:
        return len(self.hands)

    def pays(self, coins: int = MAX_COINS) -> Ints:
        """Per coin, by class id, at `coins` coins a line (10: the feature, as for 5)."""
        at_max = coins >= MAX_COINS
        per_coin = [line.pays_at_max if at_max else line.pays for line in self.rules.lines]
        return np.array([*per_coin, 0], dtype=np.int64)

    def lookup(self, key_sums: Ints, suit_bits: Ints) -> npt.NDArray[np.int8]:
        """Class of hands given their summed card keys and OR-ed suit bits."""
        suited = (suit_bits & (suit_bits - 1)) == 0
        found: npt.NDArray[np.int8] = self.table[key_sums + suited * SPACE]
        return found

    def of_cards(self, cards: Ints) -> npt.NDArray[np.int8]:
        """Class of each row of five card indexes (a row may repeat a card)."""
        bits = np.bitwise_or.reduce(self.suit_bit[cards], axis=-1)
        return self.lookup(self.card_key[cards].sum(axis=-1), bits)


@cache
def classes(paytable: str, split: bool) -> Classes:
    rules = ladder(PAYTABLES[paytable], split)
    table = np.full(2 * SPACE, -1, dtype=np.int8)
    for ranks in combinations_with_replacement(range(RANKS), 5):
        key = int(RANK_KEYS[list(ranks)].sum())
        suited = [(rank, 0) for rank in ranks]
        # Unsuited: the first natural card in another suit (one natural is always suited).
        naturals = [i for i, rank in enumerate(ranks) if rank != rules.wild_rank]
        mixed = [(rank, 1 if naturals and i == naturals[0] else 0) for i, rank in enumerate(ranks)]
        table[SPACE + key] = rules.line_of(shape_of(suited, rules.wild_rank))
        table[key] = rules.line_of(shape_of(mixed, rules.wild_rank))
    table.setflags(write=False)
    hands = (*(line.hand for line in rules.lines), Hand.NOTHING)
    cards = np.arange(DECK)
    card_key = RANK_KEYS[cards % RANKS]
    wild = cards % RANKS == rules.wild_rank if rules.wild_rank is not None else cards < 0
    suit_bit = np.where(wild, 0, np.left_shift(1, cards // RANKS)).astype(np.int64)
    return Classes(rules, table, hands, card_key, suit_bit)
