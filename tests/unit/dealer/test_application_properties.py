"""Random command sequences, dealer restarts and concurrent replicas never break the order."""

import threading
import time
from collections.abc import Sequence

from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.dealer.v1 import dealer_pb2
from services.dealer.application import DealerApplication, register_events
from services.dealer.seed_cipher import SeedCipher
from services.games.cards import parse_cards
from services.shared.auth import Principal, Role
from services.shared.errors import Conflict, FailedPrecondition, InvalidArgument
from services.shared.eventstore import EventRegistry, EventStore, InMemoryEventStore
from services.shared.eventstore.interface import AppendResult
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import entropy_commitment
from tests.unit.dealer.forwarding_store import ForwardingStore

TABLE = Principal("table", Role.SERVICE)
KEY = bytes(range(32))
SEED = bytes(range(7, 39))
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE


def new_store() -> InMemoryEventStore:
    return InMemoryEventStore(register_events(EventRegistry()))


def dealer(store: EventStore) -> DealerApplication:
    return DealerApplication(store, SeedCipher(KEY), new_seed=lambda: SEED)


commands = st.lists(
    st.one_of(
        st.tuples(st.just("deal"), st.integers(1, 9)),
        st.tuples(st.just("reshuffle"), st.integers(0, 4)),
        st.tuples(st.just("restart"), st.just(0)),
    ),
    max_size=25,
)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(commands=commands, copies=st.integers(1, 2))
def test_any_sequence_of_deals_reshuffles_and_restarts_verifies_after_close(
    commands: list[tuple[str, int]], copies: int
) -> None:
    store = new_store()
    app = dealer(store)
    app.create_shuffle(TABLE, "p1", DeckSpec("standard", copies))
    entropy = b"alice's entropy, 16+ bytes"
    app.contribute(TABLE, "p1", "alice", entropy_commitment("p1", "alice", entropy))
    app.seal(TABLE, "p1")
    app.reveal(TABLE, "p1", "alice", entropy)
    out: list[str] = []  # dealt and not returned: what a reshuffle may return
    dealt_total = 0
    for command, value in commands:
        if command == "restart":
            app = dealer(store)  # a new process: nothing cached
        elif command == "deal":
            try:
                result = app.deal(TABLE, "p1", value, HOLE)
            except FailedPrecondition as exc:
                assert "remain" in str(exc)
                continue
            assert result.first_position == dealt_total
            dealt_total += len(result.cards)
            out += result.cards
        else:
            returned, out = out[:value], out[value:]
            try:
                needed = app.get("p1")[1] + 1  # a draw that needs one more card than remain
                app.reshuffle(TABLE, "p1", parse_cards(returned), needed=needed)
            except (FailedPrecondition, InvalidArgument):
                out = returned + out
    state = app.close(TABLE, "p1").state
    assert state.dealt_count == dealt_total
    verified = dealer(store).verify_closed("p1")
    assert verified.ok and verified.cards_checked == dealt_total


class SlowAppendStore(ForwardingStore):
    """The in-memory store with a pause before each append, so replicas really interleave;
    counts the appends refused for a stale expected version."""

    def __init__(self) -> None:
        super().__init__(new_store())
        self.conflicts = 0

    def append(
        self, stream: str, events: Sequence[Message], expected_version: int, idempotency_key: str
    ) -> AppendResult:
        time.sleep(0.002)
        try:
            return super().append(stream, events, expected_version, idempotency_key)
        except Conflict:
            self.conflicts += 1
            raise


def test_two_replicas_dealing_at_once_hand_out_the_committed_order_exactly_once() -> None:
    store = SlowAppendStore()
    dealer(store).create_shuffle(TABLE, "c1", DeckSpec())
    replicas = [dealer(store), dealer(store)]  # two processes sharing one stream
    dealt: list[tuple[int, tuple[str, ...]]] = []
    lock = threading.Lock()

    errors: list[Exception] = []

    def deal_from(app: DealerApplication) -> None:
        try:
            for _ in range(13):
                result = app.deal(TABLE, "c1", 2, HOLE)
                with lock:
                    dealt.append((result.first_position, result.cards))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=deal_from, args=(app,)) for app in replicas]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    cards = [card for _, pair in sorted(dealt) for card in pair]
    assert len(cards) == 52 == len(set(cards))
    assert sorted(position for position, _ in dealt) == list(range(0, 52, 2))
    assert store.conflicts > 0, "the replicas never raced; the test proved nothing"
    app = dealer(store)
    app.close(TABLE, "c1")
    assert app.verify_closed("c1").ok
