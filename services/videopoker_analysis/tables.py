"""The standard game's subset tables for one pay table, built once and shared.

`hist[k]` (k = 0..4) counts by class the five-card hands containing each k-card set;
`hand_class` is every hand's own class. `pay_sums(coins)` turns them into pay totals.

With the Split Card feature the undealt split card may be drawn, which needs one more table:
`stub[k]`, the subset sums of each hand's split gain, sum over its five cards x and the three
second cards of (the pay of the hand with x split) - pay of the hand (in thirds of a coin:
each second card is a third). services.videopoker_analysis.advisor explains how they combine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from services.videopoker_analysis import disk_cache
from services.videopoker_analysis.classes import Classes, classes
from services.videopoker_analysis.combos import (
    Ints,
    all_hands,
    rank_of,
)
from services.videopoker_analysis.split_tables import (
    SplitTables,
    split_id,
    split_tables,
    swap_to_clubs,
)
from services.videopoker_analysis.subsets import histograms, weighted_sums

OFFSET_COUNT = 3


@dataclass
class Tables:
    classes: Classes
    hist: list[Ints]
    hand_class: Ints
    _pays: dict[int, tuple[list[Ints], Ints]] = field(default_factory=dict)

    def pay_sums(self, coins: int) -> tuple[list[Ints], Ints]:
        """Pay totals per coin of the hands containing each k-set (k = 0..4), and each hand's
        own pay, at `coins` coins."""
        if coins not in self._pays:
            pays = self.classes.pays(coins)
            self._pays[coins] = ([h @ pays for h in self.hist], pays[self.hand_class])
        return self._pays[coins]


@cache
def tables(paytable: str, split: bool) -> Tables:
    table = classes(paytable, split)

    def build() -> disk_cache.Arrays:
        hands = all_hands()
        hand_class = table.of_cards(hands).astype(np.int64)
        hist = histograms(hands, hand_class, table.count)
        return {"hand_class": hand_class, **{f"hist{k}": h for k, h in enumerate(hist)}}

    kind = "split" if split else "standard"
    stored = disk_cache.arrays(f"tables-{paytable}-{kind}", build)
    hist = [np.asarray(stored[f"hist{k}"], dtype=np.int64) for k in range(5)]
    return Tables(table, hist, np.asarray(stored["hand_class"], dtype=np.int64))


def split_gain(hands: Ints, split: SplitTables, own_pay: Ints) -> Ints:
    """Per hand: sum over its cards x and second cards of (pay with x split) - own pay."""
    gain = -len(hands[0]) * OFFSET_COUNT * own_pay
    for position in range(hands.shape[1]):
        x = hands[:, position]
        rest = np.delete(hands, position, axis=1)
        fours = rank_of(swap_to_clubs(rest, (x // 13)[:, None]))
        for offset in range(OFFSET_COUNT):
            gain = gain + split.sums[4][split_id(x % 13, offset), fours]
    return gain


@cache
def stub_sums(paytable: str) -> tuple[list[Ints], Ints]:
    """Subset sums (k = 0..4) of `split_gain` over all hands, and each hand's own gain."""

    def build() -> disk_cache.Arrays:
        hands = all_hands()
        _sums, own = tables(paytable, True).pay_sums(10)
        gain = split_gain(hands, split_tables(paytable), own)
        return {"gain": gain, **{f"sum{k}": s for k, s in enumerate(weighted_sums(hands, gain))}}

    stored = disk_cache.arrays(f"stub-{paytable}", build)
    sums = [np.asarray(stored[f"sum{k}"], dtype=np.int64) for k in range(5)]
    return sums, np.asarray(stored["gain"], dtype=np.int64)
