"""`EvaluatePacked`: many natural hands as bytes in, packed little-endian values out.

The request is one NumPy array (`np.frombuffer`, no copy) checked in bulk: every byte a card
number, no card twice in a hand; the library's batch evaluators score all hands at once, so
the cost per hand is a few nanoseconds of array work instead of a protobuf message each.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from croupier.evaluator.v1 import evaluator_pb2 as pb
from services.games.cards import card_from_index
from services.ranking.batch import best_high_batch, low_batch
from services.shared.errors import InvalidArgument

MAX_PACKED_HANDS = 100_000
MIN_CARDS, MAX_CARDS = 5, 9


def evaluate_packed(request: pb.EvaluatePackedRequest) -> pb.EvaluatePackedResponse:
    size = request.cards_per_hand
    if not MIN_CARDS <= size <= MAX_CARDS:
        raise InvalidArgument(
            f"cards_per_hand: {size}; a hand has {MIN_CARDS} to {MAX_CARDS} cards"
        )
    cards = np.frombuffer(request.cards, dtype=np.uint8)
    if len(cards) % size:
        raise InvalidArgument(
            f"cards: {len(cards)} bytes is not a whole number of {size}-card hands"
        )
    hands = cards.reshape(-1, size)
    if len(hands) > MAX_PACKED_HANDS:
        raise InvalidArgument(
            f"cards: at most {MAX_PACKED_HANDS:,} hands per call, got {len(hands):,}"
        )
    _check(cards, hands, size)
    response = pb.EvaluatePackedResponse(
        hands=len(hands), values=best_high_batch(hands).astype("<u4").tobytes()
    )
    if request.include_low:
        response.low_values = low_batch(hands).astype("<u4").tobytes()
    return response


def _check(cards: npt.NDArray[np.uint8], hands: npt.NDArray[np.uint8], size: int) -> None:
    out_of_range = np.flatnonzero(cards >= 52)
    if out_of_range.size:
        at = int(out_of_range[0])
        raise InvalidArgument(
            f"cards: byte {at} (hand {at // size}) is {int(cards[at])}; card numbers are "
            "0..51 (rank + 13 * suit)"
        )
    ordered = np.sort(hands, axis=1)
    repeats = ordered[:, 1:] == ordered[:, :-1]
    bad = np.flatnonzero(repeats.any(axis=1))
    if bad.size:
        hand = int(bad[0])
        card = int(ordered[hand, 1:][repeats[hand]][0])
        raise InvalidArgument(
            f"cards: hand {hand} holds {card_from_index(card)} twice; each card once per hand"
        )
