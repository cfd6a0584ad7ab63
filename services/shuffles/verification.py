"""Independent verification of a closed shuffle: `verify(...) -> VerificationResult`.

Given only public data after Close (commitment, revealed seed, shuffle id, deck spec, the
ordered contributions and the recorded steps: each deal's cards and each reshuffle's returned
cards), re-derive every segment and compare card by card. The result names the first thing
that does not match, so a flipped seed bit, two swapped dealt cards or a contribution that
was not in the sealed set are all reported rather than silently accepted.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from services.games.cards import Card
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, commitment, order_cards, shuffle_key
from services.shuffles.positions import mixed_order, seeded_segment
from services.shuffles.sequence import DealingError, DealSequence


@dataclass(frozen=True, slots=True)
class Dealt:
    """Cards handed out by one Deal, in order."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Reshuffled:
    """A Reshuffle that returned `include` (previously dealt cards) to the undealt ones."""

    include: tuple[Card, ...] = ()
    # The new segment's positions root as recorded (b"": not recorded, or no per-position
    # commitments); checked against the seed when given.
    root: bytes = b""


Step = Dealt | Reshuffled


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first disagreement. `position` counts dealt cards from 0 across the whole shuffle."""

    kind: str  # "commitment" | "positions_root" | "card" | "past_end" | "reshuffle"
    message: str
    position: int | None = None
    expected: str | None = None
    actual: str | None = None


@dataclass(frozen=True, slots=True)
class VerificationResult:
    mismatch: Mismatch | None
    cards_checked: int

    @property
    def ok(self) -> bool:
        return self.mismatch is None


def _seeded_orderer(
    seed: bytes,
    shuffle_id: str,
    contributions: tuple[Contribution, ...],
    nonce: int,
    cards: Sequence[Card],
) -> tuple[Card, ...]:
    return order_cards(cards, shuffle_key(seed, shuffle_id, contributions, nonce))


def verify(
    commitment_bytes: bytes,
    revealed_seed: bytes,
    shuffle_id: str,
    deck: DeckSpec,
    contributions: Sequence[Contribution],
    steps: Sequence[Step],
    positions_root: bytes = b"",
) -> VerificationResult:
    """Check the commitment, then every dealt card against the re-derived order. With a
    `positions_root` the shuffle has per-position commitments (docs/dealer.md 2.10): the root
    (and each reshuffle's recorded one) must be the seed's, and the order is the mixed one."""
    expected_commitment = commitment(shuffle_id, revealed_seed)
    if not hmac.compare_digest(expected_commitment, commitment_bytes):
        return VerificationResult(
            Mismatch(
                "commitment",
                f"commitment {commitment_bytes.hex()} does not match SHA-256 of the revealed "
                f"seed and shuffle id ({expected_commitment.hex()})",
            ),
            0,
        )
    if positions_root:
        expected_root = seeded_segment(revealed_seed, shuffle_id, 0, deck.card_multiset()).root
        if not hmac.compare_digest(expected_root, positions_root):
            return VerificationResult(
                Mismatch(
                    "positions_root",
                    f"positions root {positions_root.hex()} is not the seed's "
                    f"({expected_root.hex()}): the per-position commitments were not derived "
                    "from the committed seed",
                ),
                0,
            )
        orderer = partial(mixed_order, revealed_seed, shuffle_id, tuple(contributions))
    else:
        orderer = partial(_seeded_orderer, revealed_seed, shuffle_id, tuple(contributions))
    sequence = DealSequence.start(deck.card_multiset(), orderer)
    checked = 0
    for step in steps:
        if isinstance(step, Reshuffled):
            try:
                undealt = sequence.order[sequence.position :]
                sequence = sequence.reshuffle(step.include, orderer)
            except DealingError as exc:
                return VerificationResult(Mismatch("reshuffle", str(exc), checked), checked)
            if positions_root and step.root:
                cards = undealt + tuple(step.include)
                root = seeded_segment(revealed_seed, shuffle_id, sequence.nonce, cards).root
                if not hmac.compare_digest(root, step.root):
                    return VerificationResult(
                        Mismatch(
                            "positions_root",
                            f"reshuffle {sequence.nonce}'s positions root {step.root.hex()} "
                            f"is not the seed's ({root.hex()})",
                            checked,
                        ),
                        checked,
                    )
            continue
        for card in step.cards:
            if sequence.remaining == 0:
                return VerificationResult(
                    Mismatch(
                        "past_end", "card dealt after the deck ran out", checked, None, str(card)
                    ),
                    checked,
                )
            (expected,), sequence = sequence.deal(1)
            if expected != card:
                return VerificationResult(
                    Mismatch(
                        "card",
                        f"dealt card #{checked} is {card} but the committed order has {expected}",
                        checked,
                        str(expected),
                        str(card),
                    ),
                    checked,
                )
            checked += 1
    return VerificationResult(None, checked)
