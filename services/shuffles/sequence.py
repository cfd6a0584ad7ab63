"""The dealing sequence of one shuffle: which card comes next, across reshuffles.

Shared by the live dealer and by verification, so both walk a shuffle identically. A shuffle
is a series of segments: segment 0 orders the deck spec with nonce 0; each Reshuffle starts
segment k (nonce k) over the undealt cards of segment k-1 plus cards returned from those
already dealt. How a segment is ordered is a parameter (`Orderer`): the seeded derivation in
production, the identity for explicit test decks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from services.games.cards import Card
from services.shuffles.decks import canonical_order

# (nonce, cards: undealt in dealing order then the returned cards) -> dealing order
Orderer = Callable[[int, Sequence[Card]], tuple[Card, ...]]


class DealingError(ValueError):
    """Dealing or reshuffling that the sequence cannot do; the message says what is possible."""


def keep_given_order(_nonce: int, cards: Sequence[Card]) -> tuple[Card, ...]:
    """Orderer of explicit test decks: undealt cards keep their order, returned cards follow."""
    return tuple(cards)


@dataclass(frozen=True, slots=True)
class DealSequence:
    """Current segment order, how much of it is dealt, and the cards out of the deck."""

    order: tuple[Card, ...]
    position: int = 0
    nonce: int = 0
    out: tuple[Card, ...] = ()  # dealt and not returned by a reshuffle (a multiset)

    @classmethod
    def start(cls, deck_cards: Sequence[Card], orderer: Orderer) -> DealSequence:
        return cls(order=orderer(0, deck_cards))

    @property
    def remaining(self) -> int:
        return len(self.order) - self.position

    @property
    def dealt_total(self) -> int:
        """Cards dealt in this segment (segments before it are summarised in `out`)."""
        return self.position

    def next_cards(self, count: int) -> tuple[Card, ...]:
        """The next `count` cards without dealing them (raises when fewer remain)."""
        if count < 1:
            raise DealingError(f"count must be at least 1, got {count}")
        if count > self.remaining:
            raise DealingError(
                f"cannot deal {count} card(s): {self.remaining} remain in the deck"
                + ("; reshuffle returned cards to continue" if self.out else "")
            )
        return self.order[self.position : self.position + count]

    def deal(self, count: int) -> tuple[tuple[Card, ...], DealSequence]:
        cards = self.next_cards(count)
        after = DealSequence(self.order, self.position + count, self.nonce, self.out + cards)
        return cards, after

    def check_returnable(self, include: Sequence[Card]) -> None:
        """Raise unless every returned card is out of the deck (dealt and not yet returned)."""
        available = Counter(self.out)
        for card in include:
            if available[card] == 0:
                raise DealingError(
                    f"card {card} cannot be returned to the deck: it is not among the dealt cards"
                    f" ({len(self.out)} out)"
                )
            available[card] -= 1

    def reshuffle(self, include: Sequence[Card], orderer: Orderer) -> DealSequence:
        """Start the next segment over the undealt cards plus `include` (returned cards)."""
        self.check_returnable(include)
        remaining_out = Counter(self.out)
        remaining_out.subtract(include)
        nonce = self.nonce + 1
        cards = self.order[self.position :] + tuple(include)
        if not cards:
            raise DealingError("nothing to reshuffle: no undealt cards and none returned")
        return DealSequence(
            order=orderer(nonce, cards),
            position=0,
            nonce=nonce,
            out=canonical_order(remaining_out.elements()),
        )
