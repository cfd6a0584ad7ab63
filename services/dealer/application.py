"""The dealer's use cases: load a shuffle from its stream, decide, append, answer.

The imperative shell around the pure core (`shuffle`, `derivation`, `sequence`): it draws
seeds (the one impure input), encrypts them, decrypts them to re-derive the committed order,
and stores events through the `EventStore` port. A shuffle is cached in memory with the
version it reflects. A command is first decided on that cached copy without reading the
stream: the append's expected version is what proves the copy current. A concurrent writer
(another dealer replica) makes that append a conflict, after which the shuffle is read up to
date and the command decided again. Only an append is believed on an unread copy: a refusal
or a "nothing to do" is decided again on the stream as it is, since the events this process
has not seen could change it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from google.protobuf.message import Message

from croupier.dealer.v1 import events_pb2
from services.dealer import shuffle as core
from services.dealer.seed_cipher import SeedCipher
from services.dealer.seeds import new_server_seed
from services.games.cards import Card
from services.shared.auth import Principal, Role
from services.shared.errors import (
    Conflict,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from services.shared.eventstore import EventRegistry, EventStore, stream_key
from services.shared.lru_cache import LruCache
from services.shuffles import wire
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import (
    MAX_CONTRIBUTOR_BYTES,
    Contribution,
    commitment,
    derive_order,
)
from services.shuffles.positions import mixed_order, seeded_segment
from services.shuffles.positions import segment as given_segment
from services.shuffles.sequence import DealSequence, Orderer, keep_given_order
from services.shuffles.verification import VerificationResult, verify

T = TypeVar("T")
Decide = Callable[["Loaded"], tuple[list[Message], str]]
SHUFFLE_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")
CONFLICT_RETRIES = 10
BACKOFF_S = 0.002  # first retry waits 2-4 ms, the ninth 18-20 ms
LOCK_STRIPES = 64
MAX_REQUEST_KEY = 200  # characters of a caller's Deal/Reshuffle idempotency key
DEFAULT_TABLES = ("table",)
EVENT_TYPES: tuple[type[Message], ...] = (
    events_pb2.ShuffleCreated,
    events_pb2.ContributionAccepted,
    events_pb2.EntropyCommitted,
    events_pb2.EntropyRevealed,
    events_pb2.ShuffleSealed,
    events_pb2.CardsDealt,
    events_pb2.DeckReshuffled,
    events_pb2.ShuffleClosed,
)


def register_events(registry: EventRegistry) -> EventRegistry:
    for event_type in EVENT_TYPES:
        registry.register(event_type)
    return registry


def shuffle_stream(shuffle_id: str) -> str:
    return stream_key("shuffle", shuffle_id)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A shuffle's state and, once derived, where dealing stands in its committed order."""

    state: core.ShuffleState
    sequence: DealSequence | None = None


@dataclass(frozen=True, slots=True)
class DealResult:
    cards: tuple[str, ...]
    first_position: int
    remaining: int
    burned: tuple[str, ...] = ()  # the cards burned before `cards`, when a burn was asked


class DealerApplication:
    def __init__(
        self,
        store: EventStore,
        cipher: SeedCipher,
        *,
        allow_test_decks: bool = False,
        new_seed: Callable[[], bytes] | None = None,
        cache_size: int = 4096,
        tables: Sequence[str] = DEFAULT_TABLES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        # The service subjects that run tables: the only callers that may create, seal, deal
        # from, reshuffle or close a shuffle, or relay a player's entropy.
        self._tables = frozenset(tables)
        self._clock = clock
        self._cipher = cipher
        self._allow_test_decks = allow_test_decks
        self._new_seed = new_seed or new_server_seed
        self._cache: LruCache[Loaded] = LruCache(cache_size)
        # Commands on one shuffle run one at a time in this process; a fixed set of striped
        # locks does that without a lock object per shuffle ever dealt. (Never nested.)
        self._stripes = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # --- loading -------------------------------------------------------------------------

    def _lock(self, shuffle_id: str) -> threading.Lock:
        return self._stripes[hash(shuffle_id) % LOCK_STRIPES]

    def _load(self, shuffle_id: str) -> Loaded:
        """The cached shuffle brought up to the stream's latest version."""
        _check_shuffle_id(shuffle_id)
        cached = self._cache.get(shuffle_id)
        start = cached.state.version + 1 if cached else 1
        recorded = self._store.read(shuffle_stream(shuffle_id), from_version=start)
        if cached is None and not recorded:
            raise NotFound(f"no shuffle {shuffle_id!r}; create it with CreateShuffle first")
        loaded = cached
        for event in recorded:
            loaded = self._evolve(loaded, event.message, event.version)
        assert loaded is not None
        if recorded:
            # What was read may still be on the master alone (an append whose wait for the
            # replicas failed, or is under way): kept or answered (a retried key, a replay)
            # only once the replicas the store waits for have it. A copy holding events a
            # failover then lost would answer GetShuffle without the deals written in their
            # place, and deal on from the wrong position (its version still matches).
            self._store.wait_for_replicas(shuffle_stream(shuffle_id))
        self._cache.put(shuffle_id, loaded)
        return loaded

    def _evolve(self, loaded: Loaded | None, event: Message, version: int) -> Loaded:
        if loaded is None:
            if not isinstance(event, events_pb2.ShuffleCreated):
                raise FailedPrecondition(f"stream version {version} does not start a shuffle")
            return Loaded(core.create_state(event, version))
        state = core.apply(loaded.state, event, version)
        sequence = loaded.sequence
        if isinstance(
            event,
            events_pb2.ContributionAccepted
            | events_pb2.EntropyCommitted
            | events_pb2.EntropyRevealed,
        ):
            sequence = None  # derived with the old contributions: derive again when needed
        if sequence is not None:
            if isinstance(event, events_pb2.CardsDealt):
                sequence = self._advance(state, sequence, event)
            elif isinstance(event, events_pb2.DeckReshuffled):
                included = tuple(wire.cards_from_wire(event.included, "stored reshuffle"))
                sequence = sequence.reshuffle(included, self._orderer(state))
        return Loaded(state, sequence)

    @staticmethod
    def _advance(
        state: core.ShuffleState, sequence: DealSequence, event: events_pb2.CardsDealt
    ) -> DealSequence:
        cards, after = sequence.deal(len(event.cards))
        if [str(card) for card in cards] != list(event.cards):
            raise FailedPrecondition(
                f"shuffle {state.shuffle_id}: stored deal at position {event.first_position} "
                "disagrees with the committed order; the stream was altered"
            )
        return after

    def _orderer(self, state: core.ShuffleState) -> Orderer:
        if state.is_test_deck:
            return keep_given_order
        seed = self._cipher.decrypt(state.encrypted_seed, state.shuffle_id, state.key_id)
        if state.positions_root:
            return partial(mixed_order, seed, state.shuffle_id, state.contributions)
        return partial(_seeded_order, seed, state.shuffle_id, state.contributions)

    def _segment_root(self, state: core.ShuffleState, nonce: int, cards: Sequence[Card]) -> bytes:
        """The positions root of a new segment over `cards` (b"" for a shuffle recorded
        before per-position commitments)."""
        if not state.positions_root:
            return b""
        seed = self._cipher.decrypt(state.encrypted_seed, state.shuffle_id, state.key_id)
        if state.is_test_deck:
            return given_segment(seed, state.shuffle_id, nonce, keep_given_order(nonce, cards)).root
        return seeded_segment(seed, state.shuffle_id, nonce, cards).root

    def _current(self, loaded: Loaded) -> DealSequence:
        """Where dealing stands: re-derived from the seed and replayed over the history when
        `loaded` does not know yet (the cache is left alone: callable without the lock)."""
        if loaded.sequence is not None:
            return loaded.sequence
        state = loaded.state
        orderer = self._orderer(state)
        sequence = DealSequence.start(core.initial_cards(state), orderer)
        for entry in state.history:
            if isinstance(entry, events_pb2.CardsDealt):
                sequence = self._advance(state, sequence, entry)
            else:
                included = wire.cards_from_wire(entry.included, "stored reshuffle")
                sequence = sequence.reshuffle(included, orderer)
        return sequence

    def _sequence(self, loaded: Loaded) -> DealSequence:
        """`_current`, kept in the cache with the state (only under the shuffle's lock)."""
        if loaded.sequence is not None:
            return loaded.sequence
        sequence = self._current(loaded)
        self._cache.put(loaded.state.shuffle_id, Loaded(loaded.state, sequence))
        return sequence

    def remaining(self, loaded: Loaded) -> int:
        """Cards left in the current segment (the whole deck until the first card is dealt)."""
        if loaded.sequence is None and not loaded.state.history:
            return core.deck_size(loaded.state)
        return self._current(loaded).remaining

    def _execute(self, shuffle_id: str, decide: Decide, answer: Callable[[Loaded], T]) -> T:
        """Decide and append, then `answer` from the shuffle as it stands after the command.

        The first decision uses the cached copy without reading the stream; a conflict there
        only says the copy was behind, so the read and the second decision follow at once.
        Conflicts on a shuffle read up to date mean another replica is appending at the same
        time: those back off a little, with jitter.
        """
        _check_shuffle_id(shuffle_id)
        with self._lock(shuffle_id):
            cached = self._cache.get(shuffle_id)
            if cached is not None:
                done = self._attempt(shuffle_id, cached, decide, unread=True)
                if done is not None:
                    return answer(done)
            for attempt in range(CONFLICT_RETRIES):
                if attempt:
                    time.sleep((attempt + secrets.randbelow(1000) / 1000) * BACKOFF_S)
                done = self._attempt(shuffle_id, self._load(shuffle_id), decide, unread=False)
                if done is not None:
                    return answer(done)
        raise Conflict(
            f"shuffle {shuffle_id} kept changing under {CONFLICT_RETRIES} attempts by other "
            "dealer replicas; retry the request",
            actual_version=self._store.version(shuffle_stream(shuffle_id)),
        )

    def _attempt(
        self, shuffle_id: str, loaded: Loaded, decide: Decide, *, unread: bool
    ) -> Loaded | None:
        """One decision and append: the shuffle after it, or None to read and decide again.

        On an `unread` (cached) copy only an accepted append is final: a refusal or an answer
        without events (a replayed key, an already closed shuffle) is decided again on the
        stream as it is, so every answer reflects either a read or an append at the version
        it was decided on.
        """
        try:
            events, idempotency_key = decide(loaded)
        except DomainError:
            if unread:
                return None
            raise
        if not events:
            return None if unread else loaded
        # `decide` may have derived the sequence and cached it with this state.
        current = self._cache.get(shuffle_id)
        if current is not None and current.state.version == loaded.state.version:
            loaded = current
        try:
            result = self._store.append(
                shuffle_stream(shuffle_id), events, loaded.state.version, idempotency_key
            )
        except Conflict:
            return None
        if result.deduplicated:
            return self._load(shuffle_id)
        for offset, event in enumerate(events):
            loaded = self._evolve(loaded, event, result.first_version + offset)
        self._cache.put(shuffle_id, loaded)
        return loaded

    # --- commands ------------------------------------------------------------------------

    def require_table(self, principal: Principal, action: str) -> None:
        """Only a table service may drive a shuffle: a player, a bot, the workers (which run
        bot code) or any other service is refused, whatever its role."""
        if principal.role is not Role.SERVICE or principal.subject not in self._tables:
            raise PermissionDenied(
                f"{principal.role.value} '{principal.subject}' may not {action}: only the table "
                f"service ({', '.join(sorted(self._tables))}) drives shuffles"
            )

    def sees_record(self, principal: Principal) -> bool:
        """Who reads a closed shuffle's seed and every card it dealt (mucked hands included):
        the table, which hands each player what its reveal policy names, admins and auditors.
        Anyone else gets the public part (commitments, roots, contributions, counts)."""
        if principal.role is Role.SERVICE:
            return principal.subject in self._tables
        return principal.role in (Role.ADMIN, Role.AUDITOR)

    def create_shuffle(
        self,
        principal: Principal,
        shuffle_id: str,
        deck: DeckSpec,
        test_order: Sequence[Card] = (),
    ) -> Loaded:
        self.require_table(principal, "create a shuffle")
        if test_order and not self._allow_test_decks:
            raise PermissionDenied(
                "explicit test deck orders are refused: this dealer does not run with "
                "CROUPIER_DEALER_ALLOW_TEST_DECKS=1"
            )
        shuffle_id = shuffle_id or f"s-{secrets.token_hex(12)}"
        _check_shuffle_id(shuffle_id)
        with self._lock(shuffle_id):
            # A new shuffle (the usual case: the table announces the next hand's) is appended
            # at version 0 without reading first; a conflict or a replayed "create" key means
            # it exists, and only then is it read and compared.
            exists = self._cache.get(shuffle_id) is not None
            for _ in range(CONFLICT_RETRIES):
                if exists:
                    try:
                        existing = self._load(shuffle_id)
                    except NotFound:
                        existing = None
                    if existing is not None:
                        core.check_same_creation(existing.state, deck, test_order)
                        return existing
                seed = self._new_seed()
                # The base order and its salted positions depend on the seed alone, so their
                # root is fixed and public before any entropy (docs/dealer.md 2.10).
                root = (
                    given_segment(seed, shuffle_id, 0, tuple(test_order)).root
                    if test_order
                    else seeded_segment(seed, shuffle_id, 0, deck.card_multiset()).root
                )
                events = core.decide_create(
                    shuffle_id,
                    deck,
                    commitment(shuffle_id, seed),
                    self._cipher.encrypt(seed, shuffle_id),
                    self._cipher.key_id,
                    test_order,
                    principal.subject,
                    root,
                )
                try:
                    result = self._store.append(shuffle_stream(shuffle_id), events, 0, "create")
                except Conflict:
                    exists = True
                    continue
                if result.deduplicated:
                    exists = True  # another dealer created it first: compare specs
                    continue
                created = self._evolve(None, events[0], result.first_version)
                self._cache.put(shuffle_id, created)
                return created
        raise FailedPrecondition(f"shuffle {shuffle_id} is being created concurrently; retry")

    def contribute(
        self, principal: Principal, shuffle_id: str, contributor: str, commitment: bytes
    ) -> int:
        """Record `contributor`'s entropy commitment, relayed by the table that seated and
        authenticated it. Returns the commitment's index."""
        self.require_table(principal, "relay an entropy commitment")
        _check_contributor(contributor)

        def decide(loaded: Loaded) -> tuple[list[Message], str]:
            events = core.decide_contribute(
                loaded.state, contributor, commitment, principal.subject
            )
            return events, f"contribute/{hashlib.sha256(contributor.encode()).hexdigest()}"

        return self._execute(shuffle_id, decide, partial(_commitment_index, contributor))

    def reveal(
        self, principal: Principal, shuffle_id: str, contributor: str, entropy: bytes
    ) -> int:
        """Accept `contributor`'s committed entropy (after Seal, before the first card)."""
        self.require_table(principal, "relay a revealed entropy")
        _check_contributor(contributor)

        def decide(loaded: Loaded) -> tuple[list[Message], str]:
            events = core.decide_reveal(loaded.state, contributor, entropy)
            return events, f"reveal/{hashlib.sha256(contributor.encode()).hexdigest()}"

        return self._execute(shuffle_id, decide, partial(_commitment_index, contributor))

    def seal(self, principal: Principal, shuffle_id: str) -> Loaded:
        self.require_table(principal, "seal a shuffle")
        return self._execute(
            shuffle_id, lambda loaded: (core.decide_seal(loaded.state), "seal"), _same
        )

    def deal(
        self,
        principal: Principal,
        shuffle_id: str,
        count: int,
        purpose: int,
        recipient: str = "",
        idempotency_key: str = "",
        burn: int = 0,
        position: int | None = None,
    ) -> DealResult:
        """Deal `burn` then `count` cards. With a `position` (where the caller's record says
        the deal starts) the position names the deal (`core.place_deal`); without one the
        key does: a recorded key answers its deal, anything else deals the next cards."""
        self.require_table(principal, "deal")
        _check_request_key(idempotency_key)
        burned_key = core.burn_key(idempotency_key)

        def decide(loaded: Loaded) -> tuple[list[Message], str]:
            if position is not None:
                placed = core.place_deal(
                    loaded.state, position, count, purpose, burn, idempotency_key
                )
                if placed.dealt is not None:
                    return [], ""
                burn_now = placed.burn_now
            else:
                core.require_position(loaded.state, "a Deal")
                recorded = loaded.state.by_idempotency_key() if idempotency_key else {}
                if idempotency_key in recorded:
                    return [], ""
                # A burn already recorded under its key (a caller that burned with a Deal of
                # its own, then crashed) is not burned again.
                burn_now = 0 if burned_key in recorded else burn
            events = core.decide_deal(
                loaded.state,
                self._sequence(loaded),
                count,
                purpose,
                recipient,
                idempotency_key,
                burn_now,
                positioned=position is not None,
            )
            return events, _store_key("deal", idempotency_key)

        def answer(loaded: Loaded) -> DealResult:
            history = loaded.state.history
            dealt: core.History | None
            burned: core.History | None
            if position is not None:
                placed = core.place_deal(
                    loaded.state, position, count, purpose, burn, idempotency_key
                )
                dealt, burned = placed.dealt, placed.burned
            elif idempotency_key:
                recorded = loaded.state.by_idempotency_key()
                dealt = recorded.get(idempotency_key)
                burned = recorded.get(burned_key) if burn else None
            else:
                dealt = history[-1]
                burned = history[-2] if burn else None
            if not isinstance(dealt, events_pb2.CardsDealt) or not (
                burned is None or isinstance(burned, events_pb2.CardsDealt)
            ):
                raise FailedPrecondition(
                    f"idempotency key {idempotency_key!r} was used for a reshuffle, not a deal"
                )
            return DealResult(
                tuple(dealt.cards),
                burned.first_position if burned is not None else dealt.first_position,
                self._sequence(loaded).remaining,
                tuple(burned.cards) if burned is not None else (),
            )

        return self._execute(shuffle_id, decide, answer)

    def reshuffle(
        self,
        principal: Principal,
        shuffle_id: str,
        include: Sequence[Card],
        idempotency_key: str = "",
        needed: int = 0,
        position: int | None = None,
    ) -> DealSequence:
        """A new segment for a draw of `needed`. With a `position` (the cards dealt when the
        reshuffle is due, by the caller's record) the position names the reshuffle
        (`core.place_reshuffle`); without one the key does."""
        self.require_table(principal, "reshuffle")
        _check_request_key(idempotency_key)

        def decide(loaded: Loaded) -> tuple[list[Message], str]:
            if position is not None:
                placed = core.place_reshuffle(
                    loaded.state, position, include, needed, idempotency_key
                )
                if placed is not None:
                    return [], ""
            else:
                core.require_position(loaded.state, "a Reshuffle")
                if idempotency_key and idempotency_key in loaded.state.by_idempotency_key():
                    return [], ""
            sequence = self._sequence(loaded)
            state = loaded.state
            cards = sequence.order[sequence.position :] + tuple(include)
            events = core.decide_reshuffle(
                state,
                sequence,
                include,
                needed,
                idempotency_key,
                int(self._clock() * 1000),
                # (computed for a refused reshuffle too: cheap, and never recorded)
                self._segment_root(state, sequence.nonce + 1, cards) if cards else b"",
                positioned=position is not None,
            )
            key = _store_key("reshuffle", idempotency_key)
            return events, key

        return self._execute(shuffle_id, decide, self._sequence)

    def close(self, principal: Principal, shuffle_id: str, reason: str = "") -> Loaded:
        self.require_table(principal, "close a shuffle")

        def decide(loaded: Loaded) -> tuple[list[Message], str]:
            state = loaded.state
            if state.closed:
                return [], ""
            seed = self._cipher.decrypt(state.encrypted_seed, state.shuffle_id, state.key_id)
            return core.decide_close(state, seed, self._sequence(loaded), reason), "close"

        return self._execute(shuffle_id, decide, _same)

    # --- queries -------------------------------------------------------------------------

    def get(self, shuffle_id: str) -> tuple[core.ShuffleState, int]:
        """The state and the number of cards left in the current segment."""
        with self._lock(shuffle_id):
            loaded = self._load(shuffle_id)
            if loaded.state.history:
                return loaded.state, self._sequence(loaded).remaining
            return loaded.state, core.deck_size(loaded.state)

    def verify_closed(self, shuffle_id: str) -> VerificationResult:
        state, _ = self.get(shuffle_id)
        if state.revealed_seed is None:
            raise FailedPrecondition(
                f"shuffle {shuffle_id} is not closed yet; its seed is revealed at Close"
            )
        if state.is_test_deck:
            raise FailedPrecondition(
                f"shuffle {shuffle_id} used an explicit test deck: its order is not derived "
                "from the seed, so there is nothing to verify"
            )
        return verify(
            state.commitment,
            state.revealed_seed,
            state.shuffle_id,
            state.deck,
            state.contributions,
            state.steps(),
            state.positions_root,
        )


def _same(loaded: Loaded) -> Loaded:
    return loaded


def _commitment_index(contributor: str, loaded: Loaded) -> int:
    return [c.contributor for c in loaded.state.commitments].index(contributor)


def _check_contributor(contributor: str) -> None:
    if not 1 <= len(contributor.encode()) <= MAX_CONTRIBUTOR_BYTES:
        raise InvalidArgument(
            f"contributor must name the player, 1..{MAX_CONTRIBUTOR_BYTES} bytes of UTF-8"
        )


def _check_shuffle_id(shuffle_id: str) -> None:
    if not SHUFFLE_ID.match(shuffle_id):
        raise InvalidArgument(
            f"shuffle id {shuffle_id!r} must be 1-100 letters, digits, '_', '-' or '.'"
        )


def _check_request_key(idempotency_key: str) -> None:
    if len(idempotency_key) > MAX_REQUEST_KEY:
        raise InvalidArgument(
            f"idempotency key must be at most {MAX_REQUEST_KEY} characters, "
            f"got {len(idempotency_key)}"
        )


def _store_key(command: str, request_key: str) -> str:
    """The event-store idempotency key: the caller's key hashed to a fixed length (so any key
    up to MAX_REQUEST_KEY fits the store's limit), else a fresh random one.

    Never derived from the version alone: two replicas deciding at the same version would
    share it, and the store would answer the second with the first one's append ("already
    done") instead of a conflict, handing the same cards to both callers.
    """
    if not request_key:
        return f"{command}/{uuid.uuid4().hex}"
    return f"{command}/{hashlib.sha256(request_key.encode()).hexdigest()}"


def _seeded_order(
    seed: bytes,
    shuffle_id: str,
    contributions: tuple[Contribution, ...],
    nonce: int,
    cards: Sequence[Card],
) -> tuple[Card, ...]:
    return derive_order(seed, shuffle_id, contributions, nonce, cards)
