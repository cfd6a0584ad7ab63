"""Seeded decks and the duplicate schedule.

Deal `d` always uses the same shuffled deck (seeded by the run's seed and `d`), so replaying
it with the bots rotated round the table gives every bot the same cards in the same seat
positions once: the luck of the deal cancels out of the comparison.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from services.games.cardtext import FULL_DECK


class SeededDeck:
    """The engine's `Stub`: cards in dealing order; discards go back in, shuffled, when asked."""

    def __init__(self, seed: int, deal: int) -> None:
        self._rng = random.Random(seed * 1_000_003 + deal)
        cards = list(FULL_DECK)
        self._rng.shuffle(cards)
        self._cards = cards

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if not self._cards:
            raise StopIteration
        return self._cards.pop(0)

    def put_back(self, cards: tuple[str, ...]) -> None:
        returned = list(cards)
        self._rng.shuffle(returned)
        self._cards.extend(returned)


def seating(bots: Sequence[str], seats: int) -> list[str]:
    """The bot in each seat: the list repeated round the table."""
    return [bots[i % len(bots)] for i in range(seats)]


def rotations(seats: int, duplicate: bool) -> range:
    """How many times each deal is played: once, or once per seat rotation."""
    return range(seats) if duplicate else range(1)


def rotated(seated: Sequence[str], rotation: int) -> list[str]:
    n = len(seated)
    return [seated[(seat + rotation) % n] for seat in range(n)]
