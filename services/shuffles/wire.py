"""Translation between protobuf messages and the dealer's domain values (no I/O).

Every wire input is validated here, so a bad card, a duplicate card or an unknown deck kind
becomes INVALID_ARGUMENT naming it before anything else happens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from croupier.dealer.v1 import dealer_pb2
from services.games.cards import Card, InvalidCardError, parse_card
from services.shared.errors import InvalidArgument
from services.shuffles.decks import DeckSpec, DeckSpecError
from services.shuffles.derivation import Contribution, DerivationError
from services.shuffles.verification import Dealt, Mismatch, Reshuffled, Step, VerificationResult

_KIND_NAMES = {
    dealer_pb2.DECK_KIND_STANDARD: "standard",
    dealer_pb2.DECK_KIND_CARDS: "cards",
    dealer_pb2.DECK_KIND_MULTISET: "multiset",
}
_KIND_VALUES = {name: value for value, name in _KIND_NAMES.items()}
# A deal's purpose as the hand-history format, card proofs and messages name it ("hole").
PURPOSE_NAMES: dict[int, str] = {
    int(value): name.removeprefix("DEAL_PURPOSE_").lower()
    for name, value in dealer_pb2.DealPurpose.items()
}


def cards_from_wire(cards: Iterable[str], what: str) -> tuple[Card, ...]:
    parsed = []
    for text in cards:
        try:
            parsed.append(parse_card(text))
        except InvalidCardError as exc:
            raise InvalidArgument(f"{what}: {exc}") from exc
    return tuple(parsed)


def cards_to_wire(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


def deck_from_wire(deck: dealer_pb2.DeckSpec) -> DeckSpec:
    kind = _KIND_NAMES.get(deck.kind)
    if kind is None:
        raise InvalidArgument(
            "deck.kind is required: DECK_KIND_STANDARD, DECK_KIND_CARDS or DECK_KIND_MULTISET"
        )
    try:
        return DeckSpec.parse(kind, deck.cards, deck.copies)
    except DeckSpecError as exc:
        raise InvalidArgument(str(exc)) from exc


def deck_to_wire(deck: DeckSpec) -> dealer_pb2.DeckSpec:
    return dealer_pb2.DeckSpec(
        kind=_KIND_VALUES[deck.kind],
        copies=deck.copies if deck.kind == "standard" else 0,
        cards=cards_to_wire(deck.cards),
    )


def contribution_from_wire(contribution: dealer_pb2.Contribution) -> Contribution:
    try:
        return Contribution(contribution.contributor, bytes(contribution.entropy))
    except DerivationError as exc:
        raise InvalidArgument(str(exc)) from exc


def contribution_to_wire(contribution: Contribution) -> dealer_pb2.Contribution:
    return dealer_pb2.Contribution(
        contributor=contribution.contributor, entropy=contribution.entropy
    )


def steps_from_wire(steps: Sequence[dealer_pb2.HistoryStep]) -> list[Step]:
    result: list[Step] = []
    for number, step in enumerate(steps):
        which = step.WhichOneof("step")
        if which == "deal":
            result.append(Dealt(cards_from_wire(step.deal.cards, f"step {number}")))
        elif which == "reshuffle":
            included = cards_from_wire(step.reshuffle.included, f"step {number}")
            result.append(Reshuffled(included, bytes(step.reshuffle.positions_root)))
        else:
            raise InvalidArgument(f"step {number} is neither a deal nor a reshuffle")
    return result


def mismatch_to_wire(mismatch: Mismatch) -> dealer_pb2.Mismatch:
    return dealer_pb2.Mismatch(
        kind=mismatch.kind,
        message=mismatch.message,
        position=-1 if mismatch.position is None else mismatch.position,
        expected_card=mismatch.expected or "",
        actual_card=mismatch.actual or "",
    )


def verification_to_wire(result: VerificationResult) -> dealer_pb2.VerifyResponse:
    response = dealer_pb2.VerifyResponse(ok=result.ok, cards_checked=result.cards_checked)
    if result.mismatch is not None:
        response.mismatch.CopyFrom(mismatch_to_wire(result.mismatch))
    return response
