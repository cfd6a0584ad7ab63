"""Two brute-force references for the advisor, sharing nothing with its tables.

`pure_hold` enumerates every draw in plain Python and asks the rules package's own classifier
(services.games.videopoker.hands) about each final hand. `numpy_holds` enumerates every draw
of every hold as arrays and classifies each final hand with the vectorised classes (checked
against the same classifier in test_classes.py). With the feature on and no split card
dealt, each drawn card is the undealt split card with probability 1/47 and each second card
1/3, as the rules place it.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np

from services.games.videopoker.hands import best_five, ladder
from services.games.videopoker.paytables import PAYTABLES
from services.games.videopoker.settle import pair_of
from services.games.videopoker.split import OFFSETS, second_card, split_parts
from services.games.videopoker.state import STANDARD_DECK
from services.videopoker_analysis.advisor import card_index
from services.videopoker_analysis.classes import classes
from services.videopoker_analysis.combos import combinations_array
from services.videopoker_analysis.subsets import MASKS, mask_positions


def _pay(cards: list[str], paytable: str, coins: int) -> int:
    table = PAYTABLES[paytable]
    judged = best_five([pair_of(card) for card in cards], ladder(table, coins == 10))
    return table.pay(judged.hand, coins)


def pure_hold(dealt: list[str], paytable: str, coins: int, held: tuple[int, ...]) -> Fraction:
    """Expected coins won per line holding `held`, by enumerating the draws."""
    bases = [split_parts(card)[0] for card in dealt]
    undealt = [card for card in STANDARD_DECK if card not in bases]
    kept = [part for i in held for part in split_parts(dealt[i])]
    stub = coins == 10 and not any("|" in card for card in dealt)
    drawn_count = 5 - len(held)
    total, draws = Fraction(0), 0
    for draw in combinations(undealt, drawn_count):
        draws += 1
        hand = kept + list(draw)
        if not stub:
            total += _pay(hand, paytable, coins)
            continue
        total += Fraction(47 - drawn_count, 47) * _pay(hand, paytable, coins)
        for card in draw:
            for offset in OFFSETS:
                total += Fraction(1, 141) * _pay(
                    [*hand, second_card(card, offset)], paytable, coins
                )
    return total / draws


def numpy_holds(
    dealt: list[str], paytable: str, coins: int, min_held: int = 0
) -> dict[tuple[int, ...], Fraction]:
    """Expected coins won per line of every hold holding at least `min_held` positions."""
    split = coins == 10
    table = classes(paytable, split)
    pays = table.pays(coins) * (5 if split else coins)
    parts = [[card_index(part) for part in split_parts(card)] for card in dealt]
    undealt = np.array([c for c in range(52) if c not in [p[0] for p in parts]])
    stub = split and all(len(p) == 1 for p in parts)

    def best(rows: np.ndarray, own: np.ndarray | None = None) -> np.ndarray:
        """Pays of five-card rows, or the best five of six-card rows (`own`: the pays of the
        first five, when known): each five is the six without one card, keyed by
        subtracting that card's key and OR-ing the other cards' suit bits."""
        if rows.shape[1] == 5:
            five: np.ndarray = pays[table.of_cards(rows)]
            return five
        keys = table.card_key[rows]
        bits = table.suit_bit[rows]
        total = keys.sum(axis=1)
        first = pays[table.lookup(total - keys[:, 5], np.bitwise_or.reduce(bits[:, :5], axis=1))]
        found = [first if own is None else own]
        for i in range(5):
            others = np.bitwise_or.reduce(np.delete(bits, i, axis=1), axis=1)
            found.append(pays[table.lookup(total - keys[:, i], others)])
        six: np.ndarray = np.max(found, axis=0)
        return six

    values = {}
    for mask in range(MASKS):
        held = mask_positions(mask)
        if len(held) < min_held:
            continue
        kept = [c for i in held for c in parts[i]]
        drawn = undealt[combinations_array(47, 5 - len(held))]
        hands = np.hstack([np.tile(kept, (len(drawn), 1)), drawn]).astype(np.int64)
        own = best(hands)
        plain = int(own.sum())
        if not stub:
            values[held] = Fraction(plain, len(drawn))
            continue
        with_split = 0
        for column in range(drawn.shape[1]):
            card = drawn[:, column]
            for offset in OFFSETS:
                second = card // 13 * 13 + (card % 13 + offset) % 13
                six = np.hstack([hands, second[:, None]])
                with_split += int(best(six, own if hands.shape[1] == 5 else None).sum())
        total = (47 - drawn.shape[1]) * 3 * plain + with_split
        values[held] = Fraction(total, 141 * len(drawn))
    return values
