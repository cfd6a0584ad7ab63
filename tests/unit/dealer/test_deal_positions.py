"""Deals and reshuffles named by their position in the shuffle, not by their key.

A table replica that deals a street and dies before its append leaves the deal in the
dealer's record only; the replica that takes the table over asks again under a new key. The
position it names (how many cards its own record holds from the shuffle) gets it the very
cards dealt there, never the next ones, and a request that does not match the record is
refused with nothing recorded.
"""

import pytest

from croupier.dealer.v1 import dealer_pb2, events_pb2
from services.dealer.application import (
    DealerApplication,
    DealResult,
    register_events,
    shuffle_stream,
)
from services.dealer.seed_cipher import SeedCipher
from services.dealer.views import history_steps
from services.games.cards import parse_cards
from services.shared.auth import Principal, Role
from services.shared.errors import FailedPrecondition
from services.shared.eventstore import EventRegistry, InMemoryEventStore
from services.shuffles.decks import DeckSpec

TABLE = Principal("table", Role.SERVICE)
HOLE = dealer_pb2.DEAL_PURPOSE_HOLE
BOARD = dealer_pb2.DEAL_PURPOSE_BOARD
BURN = dealer_pb2.DEAL_PURPOSE_BURN
DRAW = dealer_pb2.DEAL_PURPOSE_DRAW


@pytest.fixture
def store() -> InMemoryEventStore:
    return InMemoryEventStore(register_events(EventRegistry()))


@pytest.fixture
def app(store: InMemoryEventStore) -> DealerApplication:
    dealer = DealerApplication(store, SeedCipher(bytes(range(32))), new_seed=lambda: b"s" * 32)
    dealer.create_shuffle(TABLE, "h1", DeckSpec())
    return dealer


def recorded(store: InMemoryEventStore) -> int:
    return store.version(shuffle_stream("h1"))


def placed(result: DealResult) -> tuple[object, ...]:
    """What a deal handed out and where (`remaining` is the shuffle's now, not the deal's)."""
    return result.burned, result.cards, result.first_position


def test_the_same_position_under_a_new_key_answers_the_cards_dealt_there(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    hole = app.deal(TABLE, "h1", 4, HOLE, idempotency_key="t/1/deal/7", position=0)
    flop = app.deal(TABLE, "h1", 3, BOARD, idempotency_key="t/1/deal/9", burn=1, position=4)
    version = recorded(store)
    # The replica that took the table over lost both appends; its keys are new.
    assert placed(app.deal(TABLE, "h1", 4, HOLE, idempotency_key="t/1/deal/8", position=0)) == (
        placed(hole)
    )
    again = app.deal(TABLE, "h1", 3, BOARD, idempotency_key="t/1/deal/10", burn=1, position=4)
    assert placed(again) == placed(flop) and again.first_position == 4 and len(again.burned) == 1
    assert recorded(store) == version  # nothing dealt again
    # The next deal is at the dealt count, whatever key it has.
    turn = app.deal(TABLE, "h1", 1, BOARD, idempotency_key="t/1/deal/11", burn=1, position=8)
    assert turn.first_position == 8
    assert set(turn.cards).isdisjoint(hole.cards + flop.cards + flop.burned)


def test_a_fresh_dealer_process_answers_a_position_from_the_stream(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    first = app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=0)
    other = DealerApplication(store, SeedCipher(bytes(range(32))))  # nothing cached
    assert placed(other.deal(TABLE, "h1", 2, HOLE, idempotency_key="b", position=0)) == placed(
        first
    )


def test_a_deal_past_the_dealt_count_is_refused_and_nothing_recorded(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=0)
    version = recorded(store)
    with pytest.raises(FailedPrecondition, match="position 3 would skip cards: 2 were dealt"):
        app.deal(TABLE, "h1", 1, BOARD, idempotency_key="b", position=3)
    assert recorded(store) == version


@pytest.mark.parametrize(
    ("count", "purpose", "burn", "holds"),
    [
        (3, HOLE, 0, "position 2 holds 2 hole card"),  # another count
        (2, BOARD, 0, "position 2 holds 2 hole card"),  # another purpose
        (2, HOLE, 1, "position 2 holds 2 hole card"),  # a burn the record has not
    ],
)
def test_a_mismatching_request_at_a_dealt_position_is_refused_and_nothing_recorded(
    app: DealerApplication,
    store: InMemoryEventStore,
    count: int,
    purpose: int,
    burn: int,
    holds: str,
) -> None:
    app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=0)
    app.deal(TABLE, "h1", 2, HOLE, idempotency_key="b", position=2)
    version = recorded(store)
    with pytest.raises(FailedPrecondition, match=holds):
        app.deal(TABLE, "h1", count, purpose, idempotency_key="c", burn=burn, position=2)
    assert recorded(store) == version


def test_a_position_inside_a_recorded_deal_is_refused(app: DealerApplication) -> None:
    app.deal(TABLE, "h1", 4, HOLE, idempotency_key="a", position=0)
    with pytest.raises(FailedPrecondition, match="inside the deal recorded at position 0"):
        app.deal(TABLE, "h1", 2, HOLE, idempotency_key="b", position=2)


def test_a_burn_recorded_with_a_different_deal_after_it_is_refused(
    app: DealerApplication,
) -> None:
    app.deal(TABLE, "h1", 3, BOARD, idempotency_key="flop", burn=1, position=0)
    with pytest.raises(FailedPrecondition, match=r"holds 3 board card.* after a burn of 1"):
        app.deal(TABLE, "h1", 1, BOARD, idempotency_key="turn", burn=1, position=0)


def test_a_key_recorded_at_another_position_does_not_deal_new_cards(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=0)
    version = recorded(store)
    with pytest.raises(FailedPrecondition, match="'a' is recorded at position 0, not 2"):
        app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=2)
    assert recorded(store) == version


def test_a_reshuffle_under_a_key_another_command_recorded_is_refused(
    store: InMemoryEventStore,
) -> None:
    app = DealerApplication(store, SeedCipher(bytes(range(32))), new_seed=lambda: b"d" * 32)
    app.create_shuffle(TABLE, "d1", DeckSpec.parse("cards", ["As", "Kd", "7h", "2c", "9s"]))
    hole = app.deal(TABLE, "d1", 4, HOLE, idempotency_key="k1", position=0)
    version = recorded(store)
    discards = parse_cards(" ".join(hole.cards[:2]))
    with pytest.raises(FailedPrecondition, match="'k1' is recorded for another command"):
        app.reshuffle(TABLE, "d1", discards, idempotency_key="k1", needed=2, position=4)
    assert recorded(store) == version


def test_a_burn_dealt_alone_at_the_position_is_not_burned_again(
    app: DealerApplication,
) -> None:
    burned = app.deal(TABLE, "h1", 1, BURN, idempotency_key="river/burn", position=0)
    river = app.deal(TABLE, "h1", 1, BOARD, idempotency_key="river-2", burn=1, position=0)
    assert river.burned == burned.cards and river.first_position == 0
    again = app.deal(TABLE, "h1", 1, BOARD, idempotency_key="x", burn=1, position=0)
    assert placed(again) == placed(river)


def test_a_closed_shuffle_still_answers_a_dealt_position(app: DealerApplication) -> None:
    hole = app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=0)
    app.close(TABLE, "h1")
    assert app.deal(TABLE, "h1", 2, HOLE, idempotency_key="b", position=0).cards == hole.cards
    with pytest.raises(FailedPrecondition, match="closed"):
        app.deal(TABLE, "h1", 2, HOLE, idempotency_key="c", position=2)


def test_without_a_position_a_new_key_deals_the_next_cards(app: DealerApplication) -> None:
    """The key-only contract callers that keep no record of their own still have."""
    first = app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a")
    assert app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a") == first
    assert app.deal(TABLE, "h1", 2, HOLE, idempotency_key="b").first_position == 2


def test_positions_count_across_reshuffle_segments(
    store: InMemoryEventStore,
) -> None:
    """A draw game: the reshuffle at a dealt count is answered again under a new key, and the
    draw after it at its position gets the cards dealt there from the new segment."""
    app = DealerApplication(store, SeedCipher(bytes(range(32))), new_seed=lambda: b"d" * 32)
    app.create_shuffle(TABLE, "d1", DeckSpec.parse("cards", ["As", "Kd", "7h", "2c", "9s"]))
    hole = app.deal(TABLE, "d1", 3, HOLE, idempotency_key="k1", position=0)
    app.deal(TABLE, "d1", 2, DRAW, idempotency_key="k2", position=3)
    discards = parse_cards(" ".join(hole.cards[:2]))
    first = app.reshuffle(TABLE, "d1", discards, idempotency_key="k3", needed=2, position=5)
    draw = app.deal(TABLE, "d1", 2, DRAW, idempotency_key="k4", position=5)
    version = store.version(shuffle_stream("d1"))
    # Taken again by another replica under new keys: the same segment, the same cards.
    again = app.reshuffle(TABLE, "d1", discards, idempotency_key="k5", needed=2, position=5)
    assert (again.nonce, first.nonce) == (1, 1)
    assert placed(app.deal(TABLE, "d1", 2, DRAW, idempotency_key="k6", position=5)) == placed(draw)
    assert store.version(shuffle_stream("d1")) == version
    reshuffles = [h for h in app.get("d1")[0].history if isinstance(h, events_pb2.DeckReshuffled)]
    assert len(reshuffles) == 1
    # A reshuffle of other cards at that position, or one where none is due, is refused.
    with pytest.raises(FailedPrecondition, match="reshuffle recorded at position 5 returned 2"):
        app.reshuffle(TABLE, "d1", discards[:1], idempotency_key="k7", needed=2, position=5)
    with pytest.raises(FailedPrecondition, match="no reshuffle is recorded at position 3"):
        app.reshuffle(TABLE, "d1", discards, idempotency_key="k8", needed=2, position=3)
    with pytest.raises(FailedPrecondition, match=r"dealt count \(7\)"):
        app.reshuffle(TABLE, "d1", discards, idempotency_key="k9", needed=2, position=9)
    app.close(TABLE, "d1")
    assert app.verify_closed("d1").ok


def test_once_a_deal_named_its_position_a_request_without_one_is_refused(
    app: DealerApplication, store: InMemoryEventStore
) -> None:
    """No way back to key-only dealing: a new key without a position would deal the next
    cards for a place in the hand that was dealt already."""
    hole = app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a", position=0)
    version = recorded(store)
    with pytest.raises(FailedPrecondition, match="dealt by position: a Deal must name its"):
        app.deal(TABLE, "h1", 2, HOLE, idempotency_key="b")
    with pytest.raises(FailedPrecondition, match="dealt by position: a Deal must name its"):
        app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a")  # (not even a replayed key)
    discards = parse_cards(" ".join(hole.cards))
    with pytest.raises(FailedPrecondition, match="dealt by position: a Reshuffle must name"):
        app.reshuffle(TABLE, "h1", discards, idempotency_key="c", needed=60)
    fresh = DealerApplication(store, SeedCipher(bytes(range(32))))  # from the stream alone
    with pytest.raises(FailedPrecondition, match="dealt by position"):
        fresh.deal(TABLE, "h1", 2, HOLE, idempotency_key="d")
    assert recorded(store) == version
    state = app.close(TABLE, "h1").state
    assert [step.deal.positioned for step in history_steps(state)] == [True]


def test_a_shuffle_dealt_without_positions_records_none(app: DealerApplication) -> None:
    app.deal(TABLE, "h1", 2, HOLE, idempotency_key="a")
    state = app.close(TABLE, "h1").state
    assert [step.deal.positioned for step in history_steps(state)] == [False]
