"""The dealer's use cases on the in-memory event store (no servers)."""

from collections.abc import Sequence

import pytest
from google.protobuf.message import Message

from croupier.dealer.v1 import dealer_pb2, events_pb2
from services.dealer.application import DealerApplication, register_events, shuffle_stream
from services.dealer.seed_cipher import SeedCipher
from services.games.cards import Card, format_cards, parse_cards
from services.shared.auth import Principal, Role
from services.shared.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from services.shared.eventstore import EventRegistry, EventStore, InMemoryEventStore
from services.shared.eventstore.interface import AppendResult, RecordedEvent
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import (
    Contribution,
    commitment,
    entropy_commitment,
)
from services.shuffles.positions import mixed_order
from tests.unit.dealer.forwarding_store import ForwardingStore

TABLE = Principal("table", Role.SERVICE)
ALICE = Principal("alice", Role.PLAYER)
SEED = bytes(range(100, 132))
KEY = bytes(range(32))
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE


@pytest.fixture
def store() -> InMemoryEventStore:
    return InMemoryEventStore(register_events(EventRegistry()))


def make_app(store: EventStore, *, allow_test_decks: bool = False) -> DealerApplication:
    return DealerApplication(
        store, SeedCipher(KEY), allow_test_decks=allow_test_decks, new_seed=lambda: SEED
    )


@pytest.fixture
def app(store: InMemoryEventStore) -> DealerApplication:
    return make_app(store)


def expected_order(shuffle_id: str, contributions: Sequence[Contribution] = ()) -> tuple[Card, ...]:
    return mixed_order(SEED, shuffle_id, contributions, 0, DeckSpec().card_multiset())


def test_creation_publishes_the_commitment_to_the_seed_and_shuffle_id(
    app: DealerApplication,
) -> None:
    loaded = app.create_shuffle(TABLE, "h1", DeckSpec())
    assert loaded.state.commitment == commitment("h1", SEED)
    assert not loaded.state.sealed and loaded.state.revealed_seed is None


ALICE_ENTROPY = b"alice entropy, 32 bytes of it..."


def contribute(app: DealerApplication, shuffle_id: str, who: str, entropy: bytes) -> None:
    """Commit `who`'s entropy through the table, seal, reveal it (the whole round)."""
    app.contribute(TABLE, shuffle_id, who, entropy_commitment(shuffle_id, who, entropy))
    app.seal(TABLE, shuffle_id)
    app.reveal(TABLE, shuffle_id, who, entropy)


def test_deals_follow_the_committed_order_including_contributions(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    contribute(app, "h1", "alice", ALICE_ENTROPY)
    first = app.deal(TABLE, "h1", 2, HOLE, "seat-1")
    second = app.deal(TABLE, "h1", 3, dealer_pb2.DEAL_PURPOSE_BOARD)
    order = expected_order("h1", (Contribution("alice", ALICE_ENTROPY),))
    assert first.cards + second.cards == tuple(str(c) for c in order[:5])
    assert second.first_position == 2 and second.remaining == 47


def test_a_player_may_not_create_deal_reshuffle_or_close(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    with pytest.raises(PermissionDenied):
        app.create_shuffle(ALICE, "h2", DeckSpec())
    with pytest.raises(PermissionDenied):
        app.deal(ALICE, "h1", 1, HOLE)
    with pytest.raises(PermissionDenied):
        app.reshuffle(ALICE, "h1", ())
    with pytest.raises(PermissionDenied):
        app.close(ALICE, "h1")


def test_a_commitment_after_the_first_deal_is_late(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.deal(TABLE, "h1", 1, HOLE)
    late = entropy_commitment("h1", "alice", ALICE_ENTROPY)
    with pytest.raises(FailedPrecondition, match="sealed"):
        app.contribute(TABLE, "h1", "alice", late)


def test_test_decks_are_refused_unless_the_dealer_runs_in_test_mode(
    store: InMemoryEventStore,
) -> None:
    order = parse_cards("As Ks Qs Js Ts")
    deck = DeckSpec("cards", cards=order)
    with pytest.raises(PermissionDenied, match="CROUPIER_DEALER_ALLOW_TEST_DECKS"):
        make_app(store).create_shuffle(TABLE, "t1", deck, order)
    app = make_app(store, allow_test_decks=True)
    app.create_shuffle(TABLE, "t1", deck, order)
    assert app.deal(TABLE, "t1", 3, HOLE).cards == ("As", "Ks", "Qs")


def test_a_test_order_must_be_a_permutation_of_the_deck(store: InMemoryEventStore) -> None:
    app = make_app(store, allow_test_decks=True)
    with pytest.raises(InvalidArgument, match="permutation"):
        app.create_shuffle(TABLE, "t1", DeckSpec(), parse_cards("As Ks"))


def test_dealing_past_the_end_names_how_many_cards_remain(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec.parse("cards", ["As", "Kd", "7h"]))
    app.deal(TABLE, "h1", 2, HOLE)
    with pytest.raises(FailedPrecondition, match="1 remain"):
        app.deal(TABLE, "h1", 2, HOLE)


def test_dealing_after_close_is_refused_naming_the_remaining_cards(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.deal(TABLE, "h1", 2, HOLE)
    app.close(TABLE, "h1")
    with pytest.raises(FailedPrecondition, match=r"closed.*50 remained"):
        app.deal(TABLE, "h1", 1, HOLE)


def test_unknown_shuffle_is_not_found(app: DealerApplication) -> None:
    with pytest.raises(NotFound, match="nope"):
        app.deal(TABLE, "nope", 1, HOLE)
    with pytest.raises(NotFound):
        app.get("nope")


def test_purpose_is_required(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    with pytest.raises(InvalidArgument, match="purpose"):
        app.deal(TABLE, "h1", 1, dealer_pb2.DEAL_PURPOSE_UNSPECIFIED)


def test_close_reveals_the_seed_and_the_shuffle_verifies(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec.parse("cards", ["As", "Kd", "7h", "2c", "9s"]))
    contribute(app, "h1", "alice", ALICE_ENTROPY)
    app.deal(TABLE, "h1", 2, HOLE)
    first_discards = app.deal(TABLE, "h1", 2, dealer_pb2.DEAL_PURPOSE_DRAW).cards
    app.reshuffle(TABLE, "h1", parse_cards(" ".join(first_discards)), needed=2)
    app.deal(TABLE, "h1", 3, dealer_pb2.DEAL_PURPOSE_DRAW)
    state = app.close(TABLE, "h1").state
    assert state.revealed_seed == SEED
    result = app.verify_closed("h1")
    assert result.ok and result.cards_checked == 7


def test_verification_before_close_is_refused(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    with pytest.raises(FailedPrecondition, match="not closed"):
        app.verify_closed("h1")


def test_a_restarted_dealer_continues_the_committed_order(store: InMemoryEventStore) -> None:
    make_app(store).create_shuffle(TABLE, "h1", DeckSpec())
    before = make_app(store).deal(TABLE, "h1", 3, HOLE)
    after = make_app(store).deal(TABLE, "h1", 3, HOLE)  # a fresh process: nothing cached
    assert before.cards + after.cards == tuple(str(c) for c in expected_order("h1")[:6])


def test_a_repeated_deal_key_returns_the_original_cards(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    first = app.deal(TABLE, "h1", 2, HOLE, idempotency_key="hand-1/seat-1")
    again = app.deal(TABLE, "h1", 2, HOLE, idempotency_key="hand-1/seat-1")
    assert first == again
    assert app.deal(TABLE, "h1", 1, HOLE).first_position == 2


def test_repeating_creation_with_the_same_spec_returns_the_shuffle(app: DealerApplication) -> None:
    first = app.create_shuffle(TABLE, "h1", DeckSpec())
    assert app.create_shuffle(TABLE, "h1", DeckSpec()).state.commitment == first.state.commitment
    with pytest.raises(AlreadyExists):
        app.create_shuffle(TABLE, "h1", DeckSpec.parse("standard", copies=2))


def test_returning_a_card_that_was_not_dealt_is_invalid(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec.parse("cards", ["As", "Ks", "Qs"]))
    dealt = app.deal(TABLE, "h1", 2, HOLE).cards
    other = next(c for c in ("As", "Ks", "Qs") if c not in dealt)
    with pytest.raises(InvalidArgument, match=f"card {other} cannot be returned"):
        app.reshuffle(TABLE, "h1", parse_cards(other), needed=2)


def test_the_stored_stream_never_holds_the_plaintext_seed_before_close(
    store: InMemoryEventStore, app: DealerApplication
) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.deal(TABLE, "h1", 2, HOLE)
    raw = b"".join(e.message.SerializeToString() for e in store.read(shuffle_stream("h1")))
    assert SEED not in raw and SEED.hex().encode() not in raw


def test_a_dealer_with_another_key_refuses_to_deal_rather_than_reshuffle(
    store: InMemoryEventStore,
) -> None:
    make_app(store).create_shuffle(TABLE, "h1", DeckSpec())
    other = DealerApplication(store, SeedCipher(bytes(32)), new_seed=lambda: SEED)
    with pytest.raises(FailedPrecondition, match="dealer key"):
        other.deal(TABLE, "h1", 1, HOLE)


def test_an_altered_stream_is_detected_on_replay(
    store: InMemoryEventStore, app: DealerApplication
) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.deal(TABLE, "h1", 2, HOLE)
    from croupier.dealer.v1 import events_pb2

    forged = events_pb2.CardsDealt(cards=["As"], purpose=HOLE, first_position=2)
    order = format_cards(expected_order("h1")[2:3])
    if order == "As":
        forged.cards[:] = ["Ks"]
    store.append(shuffle_stream("h1"), [forged], 3, "forged")
    with pytest.raises(FailedPrecondition, match="altered"):
        make_app(store).deal(TABLE, "h1", 1, HOLE)


def test_seeds_never_show_their_value_in_repr_or_str() -> None:
    from services.dealer.seeds import new_server_seed

    seed = new_server_seed()
    assert len(seed) == 32 and seed.hex() not in repr(seed) + str(seed) + f"{seed}"
    blob = SeedCipher(KEY).encrypt(seed, "h1")
    decrypted = SeedCipher(KEY).decrypt(blob, "h1", SeedCipher(KEY).key_id)
    assert decrypted == seed and seed.hex() not in repr(decrypted)


def test_a_seed_cannot_be_moved_to_another_shuffle() -> None:
    cipher = SeedCipher(KEY)
    blob = cipher.encrypt(SEED, "h1")
    with pytest.raises(FailedPrecondition, match="authentication"):
        cipher.decrypt(blob, "h2", cipher.key_id)


def test_idempotency_keys_up_to_200_characters_are_accepted(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    key = "table-42/hand-7/" + "x" * 184
    assert len(key) == 200
    assert app.deal(TABLE, "h1", 2, HOLE, idempotency_key=key) == app.deal(
        TABLE, "h1", 2, HOLE, idempotency_key=key
    )
    with pytest.raises(InvalidArgument, match="at most 200"):
        app.deal(TABLE, "h1", 1, HOLE, idempotency_key=key + "y")


def test_a_dealer_with_a_tiny_cache_still_deals_the_committed_order(
    store: InMemoryEventStore,
) -> None:
    app = DealerApplication(store, SeedCipher(KEY), new_seed=lambda: SEED, cache_size=1)
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.create_shuffle(TABLE, "h2", DeckSpec())
    dealt: dict[str, tuple[str, ...]] = {"h1": (), "h2": ()}
    for _ in range(3):
        for sid in ("h1", "h2"):  # each evicts the other from the cache
            dealt[sid] += app.deal(TABLE, sid, 2, HOLE).cards
    for sid in ("h1", "h2"):
        assert dealt[sid] == tuple(str(c) for c in expected_order(sid)[:6])


def test_the_cache_keeps_only_the_most_recently_used_shuffles() -> None:
    from services.shared.lru_cache import LruCache

    cache: LruCache[int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and len(cache) == 2


BOARD = dealer_pb2.DEAL_PURPOSE_BOARD
BURN = dealer_pb2.DEAL_PURPOSE_BURN


class CountingStore(ForwardingStore):
    """The in-memory store, counting appends and reads."""

    def __init__(self, store: EventStore) -> None:
        super().__init__(store)
        self.appends, self.reads = 0, 0

    def append(
        self, stream: str, events: Sequence[Message], expected_version: int, idempotency_key: str
    ) -> AppendResult:
        self.appends += 1
        return super().append(stream, events, expected_version, idempotency_key)

    def read(
        self, stream: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        self.reads += 1
        return super().read(stream, from_version, limit)


def test_a_deal_with_a_burn_records_the_burn_as_its_own_burn_deal_in_one_append(
    store: InMemoryEventStore,
) -> None:
    counting = CountingStore(store)
    app = make_app(counting)
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.deal(TABLE, "h1", 4, HOLE, idempotency_key="hole")
    before, appends = store.version(shuffle_stream("h1")), counting.appends
    flop = app.deal(TABLE, "h1", 3, BOARD, idempotency_key="flop", burn=1)
    assert counting.appends == appends + 1
    order = tuple(str(c) for c in expected_order("h1"))
    assert flop.burned == order[4:5] and flop.cards == order[5:8]
    assert flop.first_position == 4 and flop.remaining == 44
    recorded = store.read(shuffle_stream("h1"), from_version=before + 1)
    dealt = [r.message for r in recorded if isinstance(r.message, events_pb2.CardsDealt)]
    assert len(dealt) == len(recorded)  # every event of the append is a deal
    assert [(m.purpose, tuple(m.cards), m.idempotency_key) for m in dealt] == [
        (BURN, order[4:5], "flop/burn"),
        (BOARD, order[5:8], "flop"),
    ]
    state = app.close(TABLE, "h1").state
    deals = [h for h in state.history if isinstance(h, events_pb2.CardsDealt)]
    assert len(deals) == len(state.history)  # no reshuffle: every entry is a deal
    assert [h.purpose for h in deals] == [HOLE, BURN, BOARD]
    assert app.verify_closed("h1").ok


def test_a_repeated_deal_with_a_burn_returns_the_same_burn_and_cards(
    app: DealerApplication,
) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    first = app.deal(TABLE, "h1", 1, BOARD, idempotency_key="turn", burn=1)
    again = app.deal(TABLE, "h1", 1, BOARD, idempotency_key="turn", burn=1)
    assert first == again and len(first.burned) == 1
    assert app.deal(TABLE, "h1", 1, HOLE).first_position == 2


def test_a_burn_already_dealt_under_its_key_by_a_deal_of_its_own_is_not_burned_again(
    app: DealerApplication,
) -> None:
    """A caller that burned with a separate Deal (key `<key>/burn`) and crashed before the
    cards: the combined retry deals the cards only and returns the recorded burn."""
    app.create_shuffle(TABLE, "h1", DeckSpec())
    burned = app.deal(TABLE, "h1", 1, BURN, idempotency_key="river/burn")
    river = app.deal(TABLE, "h1", 1, BOARD, idempotency_key="river", burn=1)
    order = tuple(str(c) for c in expected_order("h1"))
    assert river.burned == burned.cards == order[:1] and river.cards == order[1:2]


def test_a_burn_that_would_overrun_the_deck_size_is_invalid(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h1", DeckSpec())
    with pytest.raises(InvalidArgument, match="burn"):
        app.deal(TABLE, "h1", 3, BOARD, burn=414)
    with pytest.raises(FailedPrecondition, match="remain"):
        app.deal(TABLE, "h1", 3, BOARD, burn=50)


def test_a_new_shuffle_and_the_deals_and_close_of_a_held_one_are_one_append_each_no_read(
    store: InMemoryEventStore,
) -> None:
    counting = CountingStore(store)
    app = make_app(counting)
    app.create_shuffle(TABLE, "h1", DeckSpec())
    app.deal(TABLE, "h1", 12, HOLE, idempotency_key="hole")
    app.deal(TABLE, "h1", 3, BOARD, idempotency_key="flop", burn=1)
    app.close(TABLE, "h1")
    assert (counting.appends, counting.reads) == (4, 0)
    assert app.verify_closed("h1").ok


def test_a_replica_whose_copy_is_behind_deals_on_from_the_other_replicas_cards(
    store: InMemoryEventStore,
) -> None:
    first, second = make_app(store), make_app(store)
    first.create_shuffle(TABLE, "h1", DeckSpec())
    a = first.deal(TABLE, "h1", 2, HOLE)
    b = second.deal(TABLE, "h1", 2, HOLE)
    c = first.deal(TABLE, "h1", 2, HOLE)  # its cached copy still ends at `a`
    order = tuple(str(card) for card in expected_order("h1"))
    assert a.cards + b.cards + c.cards == order[:6]
    assert c.first_position == 4 and c.remaining == 46


def test_a_refusal_on_a_copy_that_is_behind_is_decided_again_on_the_stream(
    store: InMemoryEventStore,
) -> None:
    first, second = make_app(store), make_app(store)
    first.create_shuffle(TABLE, "h1", DeckSpec.parse("cards", ["As", "Kd", "7h"]))
    dealt = first.deal(TABLE, "h1", 2, HOLE).cards
    second.reshuffle(TABLE, "h1", parse_cards(" ".join(dealt)), needed=2)
    # `first` still holds "1 card remains"; the stream says 3 do after the reshuffle.
    assert len(first.deal(TABLE, "h1", 3, HOLE).cards) == 3


def test_a_key_another_replica_dealt_is_answered_with_its_cards_not_dealt_again(
    store: InMemoryEventStore,
) -> None:
    first, second = make_app(store), make_app(store)
    first.create_shuffle(TABLE, "h1", DeckSpec())
    first.deal(TABLE, "h1", 2, HOLE, idempotency_key="seat-1")
    theirs = second.deal(TABLE, "h1", 3, BOARD, idempotency_key="flop", burn=1)
    again = first.deal(TABLE, "h1", 3, BOARD, idempotency_key="flop", burn=1)
    assert again == theirs
    assert store.version(shuffle_stream("h1")) == 5  # created, sealed, hole, burn, flop


def test_creating_a_shuffle_another_replica_created_compares_specs_and_appends_nothing(
    store: InMemoryEventStore,
) -> None:
    """The creating replica appends blind; one that has not seen the shuffle learns it exists
    from the append and then compares the deck spec like any repeated creation."""
    first, second = make_app(store), make_app(store)
    created = first.create_shuffle(TABLE, "h1", DeckSpec())
    version = store.version(shuffle_stream("h1"))
    again = second.create_shuffle(TABLE, "h1", DeckSpec())
    assert again.state.commitment == created.state.commitment
    with pytest.raises(AlreadyExists):
        make_app(store).create_shuffle(TABLE, "h1", DeckSpec.parse("standard", copies=2))
    assert store.version(shuffle_stream("h1")) == version
