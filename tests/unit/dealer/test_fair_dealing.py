"""No party can choose a deck: the audit's two attacks, who may drive a shuffle, and the limits.

The two attacks are replayed exactly as the audit ran them, by an insider holding the dealer
key (so the seed) and read access to Redis: both now fail to choose.
"""

import hashlib
from collections.abc import Callable, Iterator

import pytest

from croupier.dealer.v1 import dealer_pb2, events_pb2
from services.dealer.application import DealerApplication, register_events, shuffle_stream
from services.dealer.seed_cipher import SeedCipher
from services.dealer.shuffle import MAX_CONTRIBUTIONS, MAX_RESHUFFLES
from services.dealer.views import shuffle_info
from services.games.cards import parse_cards, standard_deck
from services.shared.auth import Principal, Role
from services.shared.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
)
from services.shared.eventstore import EventRegistry, InMemoryEventStore
from services.shuffles.decks import DeckSpec
from services.shuffles.derivation import Contribution, entropy_commitment
from services.shuffles.positions import mixed_order

TABLE = Principal("table", Role.SERVICE)
WORKER = Principal("worker", Role.SERVICE)
ADMIN = Principal("ops", Role.ADMIN)
MALLORY = Principal("mallory", Role.PLAYER)
SEED = bytes(range(100, 132))
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
DRAW = dealer_pb2.DEAL_PURPOSE_DRAW
ALICE_ENTROPY = hashlib.sha256(b"alice's client seed").digest()


@pytest.fixture
def store() -> InMemoryEventStore:
    return InMemoryEventStore(register_events(EventRegistry()))


@pytest.fixture
def app(store: InMemoryEventStore) -> DealerApplication:
    return DealerApplication(
        store, SeedCipher(bytes(range(32))), new_seed=lambda: SEED, clock=lambda: 1_700_000_000.5
    )


def first_two(order: tuple[object, ...]) -> set[str]:
    return {str(order[0]), str(order[1])}


# --- attack 1: choosing the deck with empty reshuffles ---------------------------------------


def test_empty_reshuffles_before_the_first_deal_no_longer_move_the_house_seat_to_aces(
    app: DealerApplication,
) -> None:
    # The insider knows the seed, so it finds the segment whose first two cards are AcAd
    # (nonce 761 for this seed; the audit's run needed 175 with its seed).
    target = next(
        nonce
        for nonce in range(1, 5000)
        if first_two(mixed_order(SEED, "h1", (), nonce, standard_deck())) == {"Ac", "Ad"}
    )
    app.create_shuffle(TABLE, "h1", DeckSpec())
    for _ in range(target):
        with pytest.raises(FailedPrecondition, match="nothing was dealt yet"):
            app.reshuffle(TABLE, "h1", (), needed=53)
    house = app.deal(TABLE, "h1", 2, HOLE).cards
    assert set(house) == first_two(mixed_order(SEED, "h1", (), 0, standard_deck()))
    assert set(house) != {"Ac", "Ad"}
    assert app.get("h1")[0].nonce == 0


def test_a_reshuffle_needs_discards_and_a_draw_the_stub_cannot_cover(
    app: DealerApplication,
) -> None:
    app.create_shuffle(TABLE, "d1", DeckSpec())
    dealt = app.deal(TABLE, "d1", 40, HOLE).cards
    discards = parse_cards(" ".join(dealt[:5]))
    with pytest.raises(InvalidArgument, match="none given"):
        app.reshuffle(TABLE, "d1", (), needed=13)
    with pytest.raises(FailedPrecondition, match=r"12 card\(s\) remain, enough for a draw of 12"):
        app.reshuffle(TABLE, "d1", discards, needed=12)
    with pytest.raises(FailedPrecondition, match="enough for a draw of 0"):
        app.reshuffle(TABLE, "d1", discards)  # a caller that does not say what it needs
    sequence = app.reshuffle(TABLE, "d1", discards, needed=13)
    assert (sequence.nonce, sequence.remaining) == (1, 17)


def test_each_reshuffle_is_recorded_with_its_index_time_and_cards(
    app: DealerApplication,
) -> None:
    app.create_shuffle(TABLE, "d2", DeckSpec())
    dealt = app.deal(TABLE, "d2", 50, HOLE).cards
    app.reshuffle(TABLE, "d2", parse_cards(" ".join(dealt[:3])), needed=4)
    remaining = app.get("d2")[1]
    app.close(TABLE, "d2", "hand ended")
    info = shuffle_info(app.get("d2")[0], remaining)
    (step,) = [s.reshuffle for s in info.steps if s.WhichOneof("step") == "reshuffle"]
    assert (step.nonce, step.size, step.needed, step.at_unix_ms) == (1, 5, 4, 1_700_000_000_500)
    assert list(step.included) == list(dealt[:3])


def test_a_shuffle_allows_a_bounded_number_of_reshuffles(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "d3", DeckSpec.parse("cards", ["As", "Kd", "7h"]))
    for _ in range(MAX_RESHUFFLES):
        card = app.deal(TABLE, "d3", 3, DRAW).cards
        app.reshuffle(TABLE, "d3", parse_cards(" ".join(card)), needed=1)
    card = app.deal(TABLE, "d3", 3, DRAW).cards
    with pytest.raises(FailedPrecondition, match=f"reshuffled {MAX_RESHUFFLES} times"):
        app.reshuffle(TABLE, "d3", parse_cards(" ".join(card)), needed=1)


# --- attack 2: choosing the deck by grinding a contribution ----------------------------------


def honest_commitment(app: DealerApplication, shuffle_id: str) -> None:
    commitment = entropy_commitment(shuffle_id, "alice", ALICE_ENTROPY)
    app.contribute(TABLE, shuffle_id, "alice", commitment)


def stored(store: InMemoryEventStore, shuffle_id: str) -> Iterator[object]:
    return (record.message for record in store.read(shuffle_stream(shuffle_id)))


def test_grinding_a_contribution_with_the_seed_and_redis_read_access_no_longer_chooses(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    app.create_shuffle(TABLE, "h2", DeckSpec())
    honest_commitment(app, "h2")
    # What the insider reads in Redis while commitments are open: no entropy, only a digest.
    readable = b"".join(e.SerializeToString() for e in stored(store, "h2"))  # type: ignore[attr-defined]
    assert ALICE_ENTROPY not in readable
    # It grinds 123 candidates as the audit did, against everything it can know (the seed and
    # the published contributions, which are none yet), and commits the best for its seat.
    candidates = [f"house-{i}".encode().ljust(16, b".") for i in range(20_000)]
    chosen = next(
        c
        for c in candidates
        if first_two(mixed_order(SEED, "h2", (Contribution("house-bot", c),), 0, standard_deck()))
        == {"As", "Ad"}
    )
    app.contribute(TABLE, "h2", "house-bot", entropy_commitment("h2", "house-bot", chosen))
    app.seal(TABLE, "h2")
    # Once Alice's entropy is public, new candidates are too late and a changed one is refused.
    app.reveal(TABLE, "h2", "alice", ALICE_ENTROPY)
    with pytest.raises(FailedPrecondition, match="sealed"):
        app.contribute(TABLE, "h2", "house-bot-2", entropy_commitment("h2", "house-bot-2", chosen))
    other = candidates[0] if candidates[0] != chosen else candidates[1]
    with pytest.raises(InvalidArgument, match="does not match"):
        app.reveal(TABLE, "h2", "house-bot", other)
    app.reveal(TABLE, "h2", "house-bot", chosen)
    house = set(app.deal(TABLE, "h2", 2, HOLE).cards)
    assert house != {"As", "Ad"}
    # The deck is the one fixed by both revealed entropies, in commitment order.
    both = (Contribution("alice", ALICE_ENTROPY), Contribution("house-bot", chosen))
    assert house == first_two(mixed_order(SEED, "h2", both, 0, standard_deck()))


def test_a_commitment_never_revealed_is_left_out_and_shown_as_withheld(
    app: DealerApplication,
) -> None:
    app.create_shuffle(TABLE, "h3", DeckSpec())
    honest_commitment(app, "h3")
    app.contribute(TABLE, "h3", "bob", entropy_commitment("h3", "bob", b"b" * 32))
    app.seal(TABLE, "h3")
    app.reveal(TABLE, "h3", "alice", ALICE_ENTROPY)
    dealt = app.deal(TABLE, "h3", 2, HOLE).cards
    with pytest.raises(FailedPrecondition, match="dealing"):
        app.reveal(TABLE, "h3", "bob", b"b" * 32)
    state = app.get("h3")[0]
    assert state.withheld == ("bob",)
    assert state.contributions == (Contribution("alice", ALICE_ENTROPY),)
    order = mixed_order(SEED, "h3", state.contributions, 0, standard_deck())
    assert dealt == tuple(str(c) for c in order[:2])
    app.close(TABLE, "h3")
    info = shuffle_info(app.get("h3")[0], 50)
    assert [(c.contributor, c.revealed, c.accepted_from) for c in info.commitments] == [
        ("alice", True, "table"),
        ("bob", False, "table"),
    ]
    assert app.verify_closed("h3").ok


def test_reveals_are_taken_only_between_seal_and_the_first_card(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h4", DeckSpec())
    honest_commitment(app, "h4")
    with pytest.raises(FailedPrecondition, match="not sealed"):
        app.reveal(TABLE, "h4", "alice", ALICE_ENTROPY)
    app.seal(TABLE, "h4")
    with pytest.raises(FailedPrecondition, match="no commitment"):
        app.reveal(TABLE, "h4", "carol", ALICE_ENTROPY)
    with pytest.raises(InvalidArgument, match=r"16\.\.64 bytes"):
        app.reveal(TABLE, "h4", "alice", b"short")
    assert app.reveal(TABLE, "h4", "alice", ALICE_ENTROPY) == 0
    with pytest.raises(AlreadyExists):
        app.reveal(TABLE, "h4", "alice", ALICE_ENTROPY)


def test_a_commitment_is_bound_to_its_shuffle_and_contributor(app: DealerApplication) -> None:
    app.create_shuffle(TABLE, "h5", DeckSpec())
    # Bob copies Alice's commitment, hoping to reveal her entropy as his own once she has.
    copied = entropy_commitment("h5", "alice", ALICE_ENTROPY)
    app.contribute(TABLE, "h5", "alice", copied)
    app.contribute(TABLE, "h5", "bob", copied)
    app.seal(TABLE, "h5")
    app.reveal(TABLE, "h5", "alice", ALICE_ENTROPY)
    with pytest.raises(InvalidArgument, match="does not match 'bob'"):
        app.reveal(TABLE, "h5", "bob", ALICE_ENTROPY)


# --- who may drive a shuffle, and how much it holds -----------------------------------------


@pytest.mark.parametrize("caller", [WORKER, ADMIN, MALLORY, Principal("table", Role.PLAYER)])
def test_only_the_table_identity_drives_a_shuffle(
    app: DealerApplication, caller: Principal
) -> None:
    app.create_shuffle(TABLE, "h6", DeckSpec())
    commitment = entropy_commitment("h6", "alice", ALICE_ENTROPY)
    calls: list[Callable[[], object]] = [
        lambda: app.create_shuffle(caller, "h7", DeckSpec()),
        lambda: app.contribute(caller, "h6", "alice", commitment),
        lambda: app.seal(caller, "h6"),
        lambda: app.reveal(caller, "h6", "alice", ALICE_ENTROPY),
        lambda: app.deal(caller, "h6", 2, HOLE),
        lambda: app.reshuffle(caller, "h6", (), needed=1),
        lambda: app.close(caller, "h6"),
    ]
    for call in calls:
        with pytest.raises(PermissionDenied, match="only the table service"):
            call()
    # Nothing happened: the shuffle is still open, with no commitment and nothing dealt.
    state = app.get("h6")[0]
    assert (state.commitments, state.sealed, state.history, state.closed) == ((), False, (), False)


def test_a_relayed_commitment_records_who_relayed_it_and_a_name_is_taken_once(
    app: DealerApplication,
) -> None:
    app.create_shuffle(TABLE, "h8", DeckSpec())
    honest_commitment(app, "h8")
    with pytest.raises(AlreadyExists, match="'alice' has already committed"):
        honest_commitment(app, "h8")
    (recorded,) = app.get("h8")[0].commitments
    assert (recorded.contributor, recorded.accepted_from) == ("alice", "table")
    with pytest.raises(InvalidArgument, match="contributor must name the player"):
        app.contribute(TABLE, "h8", "", entropy_commitment("h8", "x", ALICE_ENTROPY))
    with pytest.raises(InvalidArgument, match="32 bytes"):
        app.contribute(TABLE, "h8", "bob", b"plain entropy is refused")


def test_a_shuffle_takes_a_bounded_number_of_commitments_and_its_record_stays_small(
    app: DealerApplication,
) -> None:
    app.create_shuffle(TABLE, "h9", DeckSpec())
    names = [f"player-{i:03d}-" + "x" * 100 for i in range(MAX_CONTRIBUTIONS)]
    for name in names:
        app.contribute(TABLE, "h9", name, entropy_commitment("h9", name, b"e" * 64))
    with pytest.raises(FailedPrecondition, match=f"{MAX_CONTRIBUTIONS} commitments"):
        app.contribute(TABLE, "h9", "one-more", entropy_commitment("h9", "one-more", b"e" * 64))
    app.seal(TABLE, "h9")
    for name in names:
        app.reveal(TABLE, "h9", name, b"e" * 64)
    app.deal(TABLE, "h9", 52, HOLE)
    closed = app.close(TABLE, "h9")
    size = shuffle_info(closed.state, 0).ByteSize()
    assert size < 16_000, f"closed shuffle record is {size} bytes"


def test_close_records_why_the_shuffle_ended(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    app.create_shuffle(TABLE, "h10", DeckSpec())
    app.close(TABLE, "h10", "table closed")
    (closed,) = [e for e in stored(store, "h10") if isinstance(e, events_pb2.ShuffleClosed)]
    assert closed.reason == "table closed" and closed.undealt == 52


def test_a_refused_command_changes_nothing(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    app.create_shuffle(TABLE, "h11", DeckSpec())
    before = len(list(stored(store, "h11")))
    for call in (
        lambda: app.reshuffle(TABLE, "h11", (), needed=1),
        lambda: app.reveal(TABLE, "h11", "alice", ALICE_ENTROPY),
        lambda: app.contribute(MALLORY, "h11", "mallory", b"m" * 32),
    ):
        with pytest.raises(DomainError):
            call()
    assert len(list(stored(store, "h11"))) == before
