"""Random deals for Monte Carlo equity: whole groups of cards per draw, exactly uniform.

Every card has two additive encodings: its `FAST_INTS` key (rank-key sum and suit-key sum,
see `encoding`) and a one-bit "suit-rank mask" `1 << (16 * suit + rank)`. Adding keys and
OR-ing masks of disjoint cards gives the same encodings for a group of cards, so a group
of one to three cards is one entry of a precomputed table (22,100 entries for three cards:
small enough to stay in the CPU cache), and a hand's key and mask are a few additions.

A deal draws each group (a player's missing hole cards, the missing board) as table entries
that share no card with what the deal already holds: an entry touching a used card is drawn
again (rejection), which keeps every group uniform over the cards still unseen. A group of
more than three cards is drawn as parts of at most three: every set of k cards arises from
the same number of ordered parts, so the union is uniform too. Indexes come from
NumPy's bounded integers (Lemire's method with its rejection step), so no entry is favoured.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from services.ranking.encoding import DECK, FAST_INTS, NUM_RANKS

Keys = npt.NDArray[np.int32]
Masks = npt.NDArray[np.uint64]
Indexes = npt.NDArray[np.intp]

LANE = 16  # bits per suit in a suit-rank mask
CARD_KEYS: Keys = np.array(FAST_INTS, dtype=np.int32)
CARD_MASKS: Masks = np.array(
    [1 << (LANE * (i // NUM_RANKS) + i % NUM_RANKS) for i in range(DECK)], dtype=np.uint64
)
MAX_PART = 3


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    """The suit-rank mask of card numbers `cards`."""
    return sum(1 << (LANE * (c // NUM_RANKS) + c % NUM_RANKS) for c in set(cards))


def key_of(cards: list[int] | tuple[int, ...]) -> int:
    return sum(FAST_INTS[c] for c in cards)


@functools.cache
def _full_table(size: int) -> tuple[Keys, Masks]:
    """Key and mask of every `size`-card subset of the deck."""
    combos = np.array(list(itertools.combinations(range(DECK), size)), dtype=np.intp)
    keys = CARD_KEYS[combos].sum(axis=1, dtype=np.int32)
    masks = np.bitwise_or.reduce(CARD_MASKS[combos], axis=1)
    return keys, masks


class Deals:
    """Draws groups of cards avoiding the `known` ones (a suit-rank mask), for one request."""

    def __init__(self, rng: np.random.Generator, known: int) -> None:
        self._rng = rng
        self._unseen = np.flatnonzero((CARD_MASKS & np.uint64(known)) == 0)
        self._tables: dict[int, tuple[Keys, Masks]] = {}
        for size in range(1, MAX_PART + 1):
            keys, masks = _full_table(size)
            free = (masks & np.uint64(known)) == 0
            self._tables[size] = (keys[free], masks[free])

    def indexes(self, bound: int, count: int) -> Indexes:
        """`count` uniform integers in [0, bound) (NumPy's bounded integers are unbiased)."""
        return self._rng.integers(0, bound, count, dtype=np.intp)

    def deal(self, sizes: Sequence[int], count: int) -> list[tuple[Keys, Masks]]:
        """Per row, disjoint groups of unseen cards of the given sizes.

        When the groups take a third of the unseen cards or more, rejection would redraw most
        of the later groups many times: each row then takes its cards from a random order of
        the unseen cards instead (argsort of random keys, uniform like any shuffle).
        """
        total = sum(sizes)
        if total > len(self._unseen):
            raise ValueError(f"{total} cards to deal but only {len(self._unseen)} unseen")
        if 3 * total >= len(self._unseen):
            return self._from_shuffles(sizes, count)
        out = []
        dealt: Masks | None = None
        for size in sizes:
            keys, masks = self.draw(size, dealt, count)
            dealt = masks.copy() if dealt is None else dealt | masks
            out.append((keys, masks))
        return out

    def _from_shuffles(self, sizes: Sequence[int], count: int) -> list[tuple[Keys, Masks]]:
        order = np.argsort(self._rng.random((count, len(self._unseen))), axis=1)
        cards = np.take(self._unseen, order[:, : sum(sizes)])
        out = []
        start = 0
        for size in sizes:
            out.append(group_encodings(cards[:, start : start + size]))
            start += size
        return out

    def draw(self, size: int, used: Masks | None, count: int) -> tuple[Keys, Masks]:
        """Per row, `size` unseen cards sharing none with `used`: their key sum and mask."""
        if size == 0:
            return np.zeros(count, dtype=np.int32), np.zeros(count, dtype=np.uint64)
        part = min(size, MAX_PART)
        keys, masks = self._part(part, used, count)
        left = size - part
        while left:
            part = min(left, MAX_PART)
            part_keys, part_masks = self._part(part, masks if used is None else masks | used, count)
            keys += part_keys
            masks |= part_masks
            left -= part
        return keys, masks

    def _part(self, size: int, used: Masks | None, count: int) -> tuple[Keys, Masks]:
        table_keys, table_masks = self._tables[size]
        bound = len(table_keys)
        if bound == 0:
            raise ValueError(f"no {size} unseen cards left to deal")
        picks = self.indexes(bound, count)
        masks = np.take(table_masks, picks)
        if used is not None:
            clash = np.flatnonzero(masks & used)
            while clash.size:
                again = self.indexes(bound, clash.size)
                picks[clash] = again
                redrawn = np.take(table_masks, again)
                masks[clash] = redrawn
                clash = clash[(redrawn & used[clash]) != 0]
        return np.take(table_keys, picks), masks


def combination_chunks(cards: list[int], size: int, chunk: int) -> Iterator[npt.NDArray[np.intp]]:
    """`itertools.combinations(cards, size)` as arrays of at most `chunk` rows of card
    numbers: exact enumeration in bounded memory."""
    combos = itertools.combinations(cards, size)
    while True:
        flat = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.intp
        )
        if not flat.size and size:
            return
        yield flat.reshape(-1, size) if size else np.zeros((1, 0), dtype=np.intp)
        if not size:
            return


def group_encodings(rows: npt.NDArray[np.intp]) -> tuple[Keys, Masks]:
    """Key sum and mask of each row of card numbers."""
    if rows.shape[1] == 0:
        return np.zeros(len(rows), dtype=np.int32), np.zeros(len(rows), dtype=np.uint64)
    keys = CARD_KEYS[rows].sum(axis=1, dtype=np.int32)
    return keys, np.bitwise_or.reduce(CARD_MASKS[rows], axis=1)
