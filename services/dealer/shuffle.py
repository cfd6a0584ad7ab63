"""One shuffle as an event-sourced aggregate: `decide_*(state, ...) -> events`, `apply`.

Pure: no I/O, no clock, no randomness. The seed arrives already generated and encrypted (the
application does that at the edge); dealing takes the `DealSequence` the application
re-derived from the decrypted seed, so this module never sees a plaintext seed before Close.
Every decision validates and raises a domain error without producing events; `apply` never
validates.

Phases: OPEN (the table relays entropy commitments) -> SEALED (`decide_seal`: no more
commitments; the committed entropies are revealed) -> DEALING (the first card fixes the order
over the entropies revealed by then) -> CLOSED (the seed is public). A contributor therefore
fixes its entropy before it can see anyone else's, and the house, which knows its own seed,
can no longer pick a contribution that steers the deck.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from google.protobuf.message import Message

from croupier.dealer.v1 import dealer_pb2, events_pb2
from services.games.cards import Card
from services.shared.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
)
from services.shuffles import wire
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, entropy_commitment
from services.shuffles.sequence import DealingError, DealSequence
from services.shuffles.verification import Dealt, Reshuffled, Step

History = events_pb2.CardsDealt | events_pb2.DeckReshuffled
MAX_DEAL = 416  # never more than the largest deck
# One commitment per seated player: a table seats at most 10, so 16 leaves room and bounds
# the shuffle's record (a few kilobytes), far below the gRPC message cap.
MAX_CONTRIBUTIONS = 16
MIN_ENTROPY_BYTES = 16  # a guessable entropy could be found from its commitment
MAX_REVEALED_ENTROPY_BYTES = 64
COMMITMENT_BYTES = 32
# A draw game reshuffles when its stub cannot cover a draw: a few times a hand at most.
MAX_RESHUFFLES = 8


@dataclass(frozen=True, slots=True)
class Committed:
    """One contributor's commitment and, once revealed, its entropy. A contribution recorded
    in plain before commitments existed has `commitment` b"" and its entropy."""

    contributor: str
    commitment: bytes
    accepted_from: str
    entropy: bytes | None = None

    @property
    def revealed(self) -> bool:
        return self.entropy is not None


@dataclass(frozen=True, slots=True)
class ShuffleState:
    """Everything the stream says about one shuffle (the seed only encrypted until Close)."""

    shuffle_id: str
    deck: DeckSpec
    commitment: bytes
    encrypted_seed: bytes = field(repr=False)
    key_id: str
    test_order: tuple[Card, ...] = ()
    commitments: tuple[Committed, ...] = ()
    sealed: bool = False
    revealed_seed: bytes | None = field(default=None, repr=False)
    history: tuple[History, ...] = ()
    version: int = 0
    # Merkle root over segment 0's salted base positions (docs/dealer.md 2.10); b"" for a
    # shuffle recorded before per-position commitments (its order is derived per 2.3).
    positions_root: bytes = b""

    @property
    def closed(self) -> bool:
        return self.revealed_seed is not None

    @property
    def is_test_deck(self) -> bool:
        return bool(self.test_order)

    @property
    def dealing(self) -> bool:
        """The order is fixed: a card was dealt (reveals are over)."""
        return bool(self.history)

    @property
    def contributions(self) -> tuple[Contribution, ...]:
        """The revealed entropies in commitment order: what the shuffle key mixes in."""
        return tuple(
            Contribution(c.contributor, c.entropy)
            for c in self.commitments
            if c.entropy is not None
        )

    @property
    def withheld(self) -> tuple[str, ...]:
        """Contributors who committed and did not reveal (left out of the order)."""
        return tuple(c.contributor for c in self.commitments if c.entropy is None)

    @property
    def reshuffles(self) -> int:
        return sum(1 for h in self.history if isinstance(h, events_pb2.DeckReshuffled))

    @property
    def dealt_count(self) -> int:
        return sum(len(h.cards) for h in self.history if isinstance(h, events_pb2.CardsDealt))

    @property
    def nonce(self) -> int:
        return sum(1 for h in self.history if isinstance(h, events_pb2.DeckReshuffled))

    def steps(self) -> list[Step]:
        """The history in the form verification replays."""
        return [
            Dealt(wire.cards_from_wire(h.cards, "stored deal"))
            if isinstance(h, events_pb2.CardsDealt)
            else Reshuffled(
                wire.cards_from_wire(h.included, "stored reshuffle"), bytes(h.positions_root)
            )
            for h in self.history
        ]

    @property
    def positioned(self) -> bool:
        """A deal or reshuffle of the shuffle named its position: all later ones must."""
        return any(h.positioned for h in self.history)

    def by_idempotency_key(self) -> Mapping[str, History]:
        return {h.idempotency_key: h for h in self.history if h.idempotency_key}


def initial_cards(state: ShuffleState) -> tuple[Card, ...]:
    """What segment 0 orders: the explicit test order, or the deck spec's cards."""
    return state.test_order or state.deck.card_multiset()


def deck_size(state: ShuffleState) -> int:
    """Cards in segment 0: what remains until the first card is dealt."""
    return len(state.test_order) or state.deck.size


# --- decisions ---------------------------------------------------------------------------


def decide_create(
    shuffle_id: str,
    deck: DeckSpec,
    commitment: bytes,
    encrypted_seed: bytes,
    key_id: str,
    test_order: Sequence[Card],
    created_by: str,
    positions_root: bytes = b"",
) -> list[Message]:
    if test_order and sorted(c.index for c in test_order) != sorted(
        c.index for c in deck.card_multiset()
    ):
        raise InvalidArgument(
            f"test deck order has {len(test_order)} cards that are not a permutation of the "
            f"deck spec ({deck.size} cards)"
        )
    return [
        events_pb2.ShuffleCreated(
            shuffle_id=shuffle_id,
            deck=wire.deck_to_wire(deck),
            commitment=commitment,
            encrypted_seed=encrypted_seed,
            key_id=key_id,
            test_deck_order=wire.cards_to_wire(test_order),
            created_by=created_by,
            positions_root=positions_root,
        )
    ]


def check_same_creation(state: ShuffleState, deck: DeckSpec, test_order: Sequence[Card]) -> None:
    """A repeated CreateShuffle is fine when it asks for the same deck; otherwise refuse."""
    if state.deck != deck or state.test_order != tuple(test_order):
        raise AlreadyExists(
            f"shuffle {state.shuffle_id} already exists with a different deck spec; "
            "use a new shuffle id for a new hand"
        )


def _require_open(state: ShuffleState, action: str) -> None:
    if state.closed:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} is closed; cannot {action} (its seed is revealed)"
        )


def decide_contribute(
    state: ShuffleState, contributor: str, commitment: bytes, accepted_from: str
) -> list[Message]:
    """Record `contributor`'s commitment to its entropy (relayed by `accepted_from`)."""
    _require_open(state, "take a commitment")
    if state.sealed:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} is sealed: commitments are accepted only before Seal "
            "(reveal a committed entropy with RevealEntropy)"
        )
    if len(commitment) != COMMITMENT_BYTES:
        raise InvalidArgument(
            f"entropy_commitment must be {COMMITMENT_BYTES} bytes (SHA-256), got {len(commitment)}"
        )
    if any(c.contributor == contributor for c in state.commitments):
        raise AlreadyExists(f"{contributor!r} has already committed to shuffle {state.shuffle_id}")
    if len(state.commitments) >= MAX_CONTRIBUTIONS:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} already holds {MAX_CONTRIBUTIONS} commitments, the most "
            "a shuffle takes (one per seated player)"
        )
    return [
        events_pb2.EntropyCommitted(
            contributor=contributor, commitment=commitment, accepted_from=accepted_from
        )
    ]


def decide_reveal(state: ShuffleState, contributor: str, entropy: bytes) -> list[Message]:
    """Accept `contributor`'s committed entropy between Seal and the first card."""
    _require_open(state, "take a reveal")
    committed = next((c for c in state.commitments if c.contributor == contributor), None)
    if committed is None:
        raise FailedPrecondition(
            f"{contributor!r} has no commitment in shuffle {state.shuffle_id}: commit before Seal"
        )
    if not state.sealed:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} is not sealed yet: entropy is revealed only once no "
            "more commitments are accepted"
        )
    if state.dealing:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} is dealing: its order was fixed at the first card, "
            f"without {contributor!r}'s entropy"
        )
    if committed.revealed:
        raise AlreadyExists(f"{contributor!r} has already revealed to shuffle {state.shuffle_id}")
    if not MIN_ENTROPY_BYTES <= len(entropy) <= MAX_REVEALED_ENTROPY_BYTES:
        raise InvalidArgument(
            f"entropy must be {MIN_ENTROPY_BYTES}..{MAX_REVEALED_ENTROPY_BYTES} bytes, "
            f"got {len(entropy)}"
        )
    if entropy_commitment(state.shuffle_id, contributor, entropy) != committed.commitment:
        raise InvalidArgument(
            f"the entropy does not match {contributor!r}'s commitment in shuffle {state.shuffle_id}"
        )
    return [events_pb2.EntropyRevealed(contributor=contributor, entropy=entropy)]


def decide_seal(state: ShuffleState) -> list[Message]:
    _require_open(state, "seal")
    if state.sealed:
        return []
    return [events_pb2.ShuffleSealed(contributions=len(state.commitments))]


def decide_deal(
    state: ShuffleState,
    sequence: DealSequence,
    count: int,
    purpose: int,
    recipient: str,
    idempotency_key: str,
    burn: int = 0,
    positioned: bool = False,
) -> list[Message]:
    """Deal `count` cards for `purpose`, after `burn` burned cards (their own CardsDealt with
    purpose BURN, keyed `<idempotency_key>/burn`, so the record labels them as burns);
    `positioned`: the request named its position (recorded, see `require_position`)."""
    if state.closed:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} is closed; no cards can be dealt "
            f"({sequence.remaining} remained undealt)"
        )
    if (
        purpose == dealer_pb2.DEAL_PURPOSE_UNSPECIFIED
        or purpose not in dealer_pb2.DealPurpose.values()
    ):
        raise InvalidArgument("purpose is required: hole, board, burn, draw, spit, up or down")
    if not 1 <= count <= MAX_DEAL:
        raise InvalidArgument(f"count must be between 1 and {MAX_DEAL}, got {count}")
    if not 0 <= burn <= MAX_DEAL - count:
        raise InvalidArgument(
            f"burn must be between 0 and {MAX_DEAL - count} with count {count}, got {burn}"
        )
    try:
        cards = sequence.next_cards(burn + count)
    except DealingError as exc:
        raise FailedPrecondition(f"shuffle {state.shuffle_id}: {exc}") from exc
    events: list[Message] = [*decide_seal(state)]
    if burn:
        events.append(
            events_pb2.CardsDealt(
                cards=wire.cards_to_wire(cards[:burn]),
                purpose=dealer_pb2.DEAL_PURPOSE_BURN,
                first_position=state.dealt_count,
                nonce=sequence.nonce,
                idempotency_key=burn_key(idempotency_key),
                positioned=positioned,
            )
        )
    events.append(
        events_pb2.CardsDealt(
            cards=wire.cards_to_wire(cards[burn:]),
            purpose=purpose,  # type: ignore[arg-type]
            recipient=recipient,
            first_position=state.dealt_count + burn,
            nonce=sequence.nonce,
            idempotency_key=idempotency_key,
            positioned=positioned,
        )
    )
    return events


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a positioned Deal stands in the record: the deal recorded at its position (and
    the burn before it) to answer again, or None with the burn still to deal (0 when the
    burn is recorded alone at the end: a caller that burned with a Deal of its own)."""

    dealt: events_pb2.CardsDealt | None = None
    burned: events_pb2.CardsDealt | None = None
    burn_now: int = 0


def _dealt_before(history: Sequence[History]) -> list[int]:
    """How many cards were dealt before each history entry (over every segment)."""
    counts = []
    dealt = 0
    for entry in history:
        counts.append(dealt)
        if isinstance(entry, events_pb2.CardsDealt):
            dealt += len(entry.cards)
    return counts


def _deal_text(count: int, purpose: int, burn: int) -> str:
    text = f"{count} {wire.PURPOSE_NAMES.get(purpose, str(purpose))} card(s)"
    return f"{text} after a burn of {burn}" if burn else text


def place_deal(
    state: ShuffleState, position: int, count: int, purpose: int, burn: int, idempotency_key: str
) -> Placement:
    """A Deal that names its `position` (how many cards the caller's record holds from the
    shuffle, burns included), against the record: the deal recorded there when it is the
    same request (whatever its key), else a new deal when `position` is the dealt count.

    The position, not the key, names the deal: a caller that lost its record of a deal (a
    table replica killed before its append) and asks again under a new key gets the very
    cards dealt there, so no one can pick between two slices of the deck for one place in
    a hand. A different request at a dealt position, or one past the dealt count, is
    refused and nothing is recorded."""
    dealt_count = state.dealt_count
    where = f"shuffle {state.shuffle_id}"
    if position > dealt_count:
        raise FailedPrecondition(
            f"{where}: a deal at position {position} would skip cards: {dealt_count} were "
            f"dealt, so the next deal is at position {dealt_count} (the position is how many "
            "cards the caller's record holds from the shuffle, burns included)"
        )
    history = state.history
    if position == dealt_count:
        if idempotency_key:
            used = next(
                (
                    before
                    for before, entry in zip(_dealt_before(history), history, strict=True)
                    if entry.idempotency_key == idempotency_key
                ),
                None,
            )
            if used is not None:
                raise FailedPrecondition(
                    f"{where}: idempotency key {idempotency_key!r} is recorded at position "
                    f"{used}, not {position}: a new deal needs a key of its own"
                )
        return Placement(burn_now=burn)
    asked = _deal_text(count, purpose, burn)
    starts = [
        (index, entry)
        for index, entry in enumerate(history)
        if isinstance(entry, events_pb2.CardsDealt)
        and entry.first_position <= position < entry.first_position + len(entry.cards)
    ]
    if not starts or starts[0][1].first_position != position:
        inside = (
            f" falls inside the deal recorded at position {starts[0][1].first_position}"
            if starts
            else " holds no recorded deal"
        )
        raise FailedPrecondition(
            f"{where}: position {position}{inside}; a deal is answered again only at the "
            f"position it started at (asked: {asked}; {dealt_count} cards were dealt)"
        )
    index, first = starts[0]
    following = history[index + 1] if index + 1 < len(history) else None
    if burn and first.purpose == dealer_pb2.DEAL_PURPOSE_BURN and len(first.cards) == burn:
        if following is None:
            return Placement(burn_now=0)  # (burned alone: the cards after it are dealt now)
        if (
            isinstance(following, events_pb2.CardsDealt)
            and len(following.cards) == count
            and following.purpose == purpose
        ):
            return Placement(following, first)
        recorded = (
            _deal_text(len(following.cards), following.purpose, burn)
            if isinstance(following, events_pb2.CardsDealt)
            else f"a burn of {burn} followed by a reshuffle"
        )
    elif not burn and len(first.cards) == count and first.purpose == purpose:
        return Placement(first)
    elif first.purpose == dealer_pb2.DEAL_PURPOSE_BURN and isinstance(
        following, events_pb2.CardsDealt
    ):
        recorded = _deal_text(len(following.cards), following.purpose, len(first.cards))
    else:
        recorded = _deal_text(len(first.cards), first.purpose, 0)
    raise FailedPrecondition(
        f"{where}: position {position} holds {recorded}, not the {asked} asked for; ask for "
        f"the deal recorded there, or deal at position {dealt_count} (nothing was dealt)"
    )


def place_reshuffle(
    state: ShuffleState,
    position: int,
    include: Sequence[Card],
    needed: int,
    idempotency_key: str,
) -> events_pb2.DeckReshuffled | None:
    """A Reshuffle that names its `position` (the cards dealt when it is due) against the
    record: the reshuffle recorded at that dealt count when it is the same request, or None
    when one may be decided now (at the dealt count, none recorded there)."""
    where = f"shuffle {state.shuffle_id}"
    dealt_count = state.dealt_count
    history = state.history
    at = [
        entry
        for before, entry in zip(_dealt_before(history), history, strict=True)
        if isinstance(entry, events_pb2.DeckReshuffled) and before == position
    ]
    if at:
        recorded = at[0]
        if list(recorded.included) == [str(card) for card in include] and recorded.needed == needed:
            return recorded
        raise FailedPrecondition(
            f"{where}: the reshuffle recorded at position {position} returned "
            f"{len(recorded.included)} card(s) for a draw of {recorded.needed}, not the "
            f"{len(include)} card(s) for a draw of {needed} asked for; nothing was reshuffled"
        )
    if position != dealt_count:
        raise FailedPrecondition(
            f"{where}: no reshuffle is recorded at position {position} and {dealt_count} "
            f"cards were dealt: a reshuffle is due only at the dealt count ({dealt_count})"
        )
    if idempotency_key and idempotency_key in state.by_idempotency_key():
        raise FailedPrecondition(
            f"{where}: idempotency key {idempotency_key!r} is recorded for another command; "
            "a new reshuffle needs a key of its own"
        )
    return None


def require_position(state: ShuffleState, action: str) -> None:
    """Refuse a request without a position once the shuffle is dealt by position: going back
    to key-only requests would let a caller deal a place in the hand a second time."""
    if state.positioned:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} is dealt by position: {action} must name its "
            f"position (the cards the caller's record holds from the shuffle; "
            f"{state.dealt_count} were dealt)"
        )


def burn_key(idempotency_key: str) -> str:
    """The record key of a deal's burn ("" without a key): the key the table used when it
    burned with a Deal of its own, so a retry finds a burn dealt either way."""
    return f"{idempotency_key}/burn" if idempotency_key else ""


def decide_reshuffle(
    state: ShuffleState,
    sequence: DealSequence,
    include: Sequence[Card],
    needed: int,
    idempotency_key: str,
    now_ms: int,
    positions_root: bytes = b"",
    positioned: bool = False,
) -> list[Message]:
    """A new segment over the undealt cards and `include` (the table's discards), only when
    a draw needs more cards than remain: each extra segment is another order the caller
    could choose among, so a reshuffle is never free."""
    _require_open(state, "reshuffle")
    if not state.dealing:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id}: nothing was dealt yet, so there is nothing to "
            "reshuffle (a reshuffle returns discards when a draw needs more cards than remain)"
        )
    if not include:
        raise InvalidArgument(
            f"shuffle {state.shuffle_id}: a reshuffle returns the table's discards; none given"
        )
    if needed < 1 or sequence.remaining >= needed:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id}: {sequence.remaining} card(s) remain, enough for a "
            f"draw of {needed}; reshuffle only when a draw needs more cards than remain"
        )
    if state.reshuffles >= MAX_RESHUFFLES:
        raise FailedPrecondition(
            f"shuffle {state.shuffle_id} was reshuffled {MAX_RESHUFFLES} times, the most a "
            "shuffle allows"
        )
    try:
        sequence.check_returnable(include)
    except DealingError as exc:
        raise InvalidArgument(f"shuffle {state.shuffle_id}: {exc}") from exc
    event = events_pb2.DeckReshuffled(
        included=wire.cards_to_wire(include),
        nonce=sequence.nonce + 1,
        size=sequence.remaining + len(include),
        idempotency_key=idempotency_key,
        needed=needed,
        at_unix_ms=now_ms,
        positions_root=positions_root,
        positioned=positioned,
    )
    return [*decide_seal(state), event]


def decide_close(
    state: ShuffleState, seed: bytes, sequence: DealSequence, reason: str = ""
) -> list[Message]:
    if state.closed:
        return []
    return [
        events_pb2.ShuffleClosed(
            server_seed=bytes(seed), undealt=sequence.remaining, reason=reason[:100]
        )
    ]


# --- evolution ---------------------------------------------------------------------------


def create_state(event: events_pb2.ShuffleCreated, version: int) -> ShuffleState:
    return ShuffleState(
        shuffle_id=event.shuffle_id,
        deck=wire.deck_from_wire(event.deck),
        commitment=event.commitment,
        encrypted_seed=event.encrypted_seed,
        key_id=event.key_id,
        test_order=wire.cards_from_wire(event.test_deck_order, "stored test deck"),
        version=version,
        positions_root=bytes(event.positions_root),
    )


def apply(state: ShuffleState, event: Message, version: int) -> ShuffleState:
    """The state after `event` (stored at `version`)."""
    if isinstance(event, events_pb2.EntropyCommitted):
        committed = Committed(event.contributor, bytes(event.commitment), event.accepted_from)
        return replace(state, commitments=(*state.commitments, committed), version=version)
    if isinstance(event, events_pb2.EntropyRevealed):
        commitments = tuple(
            replace(c, entropy=bytes(event.entropy)) if c.contributor == event.contributor else c
            for c in state.commitments
        )
        return replace(state, commitments=commitments, version=version)
    if isinstance(event, events_pb2.ContributionAccepted):  # recorded before commitments
        plain = event.contribution
        committed = Committed(plain.contributor, b"", event.accepted_from, bytes(plain.entropy))
        return replace(state, commitments=(*state.commitments, committed), version=version)
    if isinstance(event, events_pb2.ShuffleSealed):
        return replace(state, sealed=True, version=version)
    if isinstance(event, events_pb2.CardsDealt | events_pb2.DeckReshuffled):
        return replace(state, history=(*state.history, event), version=version)
    if isinstance(event, events_pb2.ShuffleClosed):
        return replace(state, revealed_seed=bytes(event.server_seed), version=version)
    return replace(state, version=version)
