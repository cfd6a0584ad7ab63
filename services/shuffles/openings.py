"""The openings of a shuffle's dealt cards, from its seed and record (docs/dealer.md 2.10).

Whoever holds the seed after Close (the table, an auditor) replays the record segment by
segment and opens each dealt card against its segment's root; the table then hands each
opening only to whoever saw that card. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.games.cards import Card
from services.shuffles.derivation import Contribution
from services.shuffles.positions import Opening, Segment, mix_permutation, mixed, seeded_segment
from services.shuffles.positions import segment as given_segment
from services.shuffles.sequence import DealingError, DealSequence, keep_given_order
from services.shuffles.verification import Reshuffled, Step


@dataclass(frozen=True, slots=True)
class Opened:
    """Every dealt card's opening (in dealing order) and each segment's root (by nonce)."""

    openings: tuple[Opening, ...]
    roots: tuple[bytes, ...]


def open_dealt(
    seed: bytes,
    shuffle_id: str,
    cards: Sequence[Card],
    contributions: Sequence[Contribution],
    steps: Sequence[Step],
    *,
    given_order: bool = False,
) -> Opened:
    """Open every card `steps` dealt. `cards` is the deck spec's multiset, or with
    `given_order` a test deck's exact order (its mix is the identity). Raises DealingError
    when the record does not follow the committed order."""
    segments: dict[int, tuple[Segment, tuple[int, ...]]] = {}

    def order(nonce: int, segment_cards: Sequence[Card]) -> tuple[Card, ...]:
        if given_order:
            base = keep_given_order(nonce, segment_cards)
            seg, mix = given_segment(seed, shuffle_id, nonce, base), tuple(range(len(base)))
        else:
            seg = seeded_segment(seed, shuffle_id, nonce, segment_cards)
            mix = mix_permutation(shuffle_id, contributions, nonce, len(seg.base))
        segments[nonce] = (seg, mix)
        return mixed(seg.base, mix)

    sequence = DealSequence.start(cards, order)
    openings: list[Opening] = []
    for step in steps:
        if isinstance(step, Reshuffled):
            sequence = sequence.reshuffle(step.include, order)
            continue
        for card in step.cards:
            seg, mix = segments[sequence.nonce]
            opening = seg.opening(mix, sequence.position, len(openings))
            if opening.card != str(card):
                raise DealingError(
                    f"dealt card #{len(openings)} is {card} but the committed order has "
                    f"{opening.card}"
                )
            openings.append(opening)
            _, sequence = sequence.deal(1)
    roots = tuple(segments[n][0].root for n in sorted(segments))
    return Opened(tuple(openings), roots)
