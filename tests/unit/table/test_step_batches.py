"""The table application groups its process steps: one append per batch of consecutive steps,
one dealer call per street (a hand's boundary one AdvanceShuffles), and the side-effect-free
steps inside the command's own append.

No servers: the in-memory event store, the real dealer application behind the table's dealer
port, a ledger that accepts every call, the ranking library in process."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from google.protobuf.message import Message

from croupier.dealer.v1 import events_pb2 as dealer_events
from croupier.table.v1 import events_pb2
from services.dealer.shuffle import ShuffleState
from services.games.contract import DeckSpec
from services.games.poker import events as ev
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.games.poker.legal import legal_actions
from services.ranking.ports import LibraryRanker
from services.shared import errors
from services.shared.eventstore import AppendResult, InMemoryEventStore
from services.table import codec
from services.table.application import TableApplication, TableSpec, table_stream
from services.table.ports import STANDARD_DECK, Commitment, NoScheduler
from services.table.process import shuffle_id_of
from tests.fixtures.table_ports import InProcessDealer, NullLedger, poker_move


class Store(InMemoryEventStore):
    """The in-memory event store, remembering each table append's event types (not the
    ones it answered as already done); `fail_next` makes
    the next append fail as a crash before it would (nothing is written)."""

    def __init__(self) -> None:
        super().__init__(codec.registry())
        self.appends: list[list[str]] = []
        self.fail_next = False
        self.fail_after = 0  # with fail_next: appends to let through first

    def append(
        self,
        stream: str,
        events: Sequence[Message],
        expected_version: int,
        idempotency_key: str,
    ) -> AppendResult:
        if self.fail_next and self.fail_after:
            self.fail_after -= 1
        elif self.fail_next:
            self.fail_next = False
            raise RuntimeError("crashed before the append")
        result = super().append(stream, events, expected_version, idempotency_key)
        if stream.startswith("{table:") and not result.deduplicated:
            self.appends.append([type(e).__name__ for e in events])
        return result


@dataclass
class World:
    store: Store
    dealer: InProcessDealer
    app: TableApplication
    table_id: str

    def instance(self) -> TableApplication:
        """Another table service instance on the same store, dealer and ledger."""
        return TableApplication(
            self.store, self.dealer, self.app.ledger, LibraryRanker(), NoScheduler()
        )

    def to_last_action(self) -> None:
        """Play hand 1 up to its last action (the second show at the showdown)."""
        for _ in range(9):  # check/call through four streets, then the first show
            self.passive()
        assert self.app.load(self.table_id).state.engine.hand is not None

    def passive(self, app: TableApplication | None = None, key: str = "") -> None:
        """The player to act checks, calls, or shows at the showdown."""
        app = app or self.app
        engine = app.load(self.table_id).state.engine
        assert engine.hand is not None and engine.hand.to_act is not None
        seat = engine.hand.to_act
        actions = legal_actions(engine, seat).actions
        action = next(a for a in ("check", "call", "show") if a in actions)
        seated = engine.seats[seat]
        assert seated is not None
        player = seated.player
        app.act(
            self.table_id,
            player,
            poker_move(seat, action, hand=engine.hand.number),
            key or f"{engine.hand.number}-{len(self.store.appends)}",
            None,
        )


@pytest.fixture
def world() -> World:
    store, dealer = Store(), InProcessDealer()
    app = TableApplication(store, dealer, NullLedger(), LibraryRanker(), NoScheduler())
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)
    table_id = app.create_table(TableSpec(config, table_id="t1"), "house", "create").table_id
    for seat, player in enumerate(("alice", "bob")):
        app.join(table_id, player, seat, 200, "", f"join-{player}")
    return World(store, dealer, app, table_id)


def table_events(world: World) -> list[object]:
    return [codec.from_message(r.message) for r in world.store.read(table_stream(world.table_id))]


def test_each_street_is_one_dealer_call_and_one_append(world: World) -> None:
    """After the preflop's last action: the burn and the flop in one Deal, one append."""
    world.passive()  # the small blind calls; the big blind checks next and closes preflop
    world.dealer.calls.clear()
    appends = len(world.store.appends)
    world.passive()
    assert world.dealer.calls == ["Deal"]
    assert world.store.appends[appends:] == [
        ["CommandAccepted", "ActionTaken", "PhaseStarted"],
        # (ShuffleDealt: the position the next deal from the shuffle names at the dealer)
        ["ShuffleDealt", "CardsDealt", "PhaseStarted", "ActionRequested"],
    ]
    flop = next(e for e in reversed(table_events(world)) if isinstance(e, ev.CardsDealt))
    assert len(flop.burned) == 1 and len(flop.cards) == 3


def test_the_rivers_last_action_carries_the_ranking(world: World) -> None:
    for _ in range(7):  # preflop call + check, then check-check on flop and turn
        world.passive()
    appends = len(world.store.appends)
    world.passive()
    assert world.store.appends[appends:] == [
        ["CommandAccepted", "ActionTaken", "PhaseStarted", "HandsRanked", "ActionRequested"]
    ]


def test_the_last_action_carries_the_settlement_and_one_append_ends_and_starts_hands(
    world: World,
) -> None:
    """The hand's last action ends it in one append (no rake: nothing to settle); the reveal,
    the next hand's start and its hole cards are the next, in ONE dealer call: an
    AdvanceShuffles closing the hand's shuffle, sealing the next hand's, creating the one two
    hands ahead and dealing the hole cards."""
    world.to_last_action()
    world.dealer.calls.clear()
    appends = len(world.store.appends)
    world.passive()  # the second show
    last, between = world.store.appends[appends:]
    assert last[:2] == ["CommandAccepted", "CardsShown"]
    assert "HandEnded" in last and "ActionRequested" not in last and "RakeSettled" not in last
    assert between[0] == "ShuffleRevealed" and between[-1] == "ActionRequested"
    assert {"ShuffleCommitted", "HandStarted", "ShuffleAnnounced", "CardsDealt"} <= set(between)
    assert world.dealer.calls == ["AdvanceShuffles"]
    assert world.dealer.batches[-1] == ["Close", "Seal", "CreateShuffle", "Deal"]
    engine_hand = world.app.load(world.table_id).state.engine.hand
    assert engine_hand is not None
    assert engine_hand.number == 2


def test_a_command_remembers_the_version_its_whole_append_ended_at(world: World) -> None:
    world.to_last_action()
    world.passive(key="last-check")
    table = world.app.load(world.table_id)
    recorded = [
        (r.version, codec.from_message(r.message))
        for r in world.store.read(table_stream(world.table_id))
    ]
    accepted = next(
        e
        for _, e in recorded
        if isinstance(e, events_pb2.CommandAccepted) and e.key.endswith("/last-check")
    )
    ended = next(v for v, e in recorded if type(e).__name__ == "HandEnded")
    assert table.shell.version_of_key(accepted.key) == ended


def test_a_dealer_down_mid_batch_keeps_the_steps_before_it_and_the_retry_finishes(
    world: World,
) -> None:
    world.to_last_action()
    real_open = world.dealer.open_shuffle

    def open_down(shuffle_id: str, deck: DeckSpec = STANDARD_DECK) -> Commitment:
        raise errors.Unavailable("dealer CreateShuffle failed: connection refused")

    # The reveal (Close) works, then the dealer fails the shuffle two hands ahead.
    world.dealer.open_shuffle = open_down  # type: ignore[method-assign]
    appends = len(world.store.appends)
    world.passive()  # recorded, although the steps after it stall
    # The batch fails at its CreateShuffle; then each call goes alone and fails where it fails.
    assert world.dealer.calls[-3:] == ["AdvanceShuffles", "Close", "Seal"]
    assert [a[0] for a in world.store.appends[appends:]] == ["CommandAccepted", "ShuffleRevealed"]
    assert world.store.appends[-1] == ["ShuffleRevealed", "DeckRevealed", "DeckCommitted"]
    table = world.app.load(world.table_id)
    assert table.state.engine.hand is None and table.state.deck_of(1) is None
    world.dealer.open_shuffle = real_open  # type: ignore[method-assign]
    world.dealer.calls.clear()
    table = world.app.drive(world.table_id)
    assert table.state.engine.hand is not None and table.state.engine.hand.number == 2
    assert world.dealer.calls == ["AdvanceShuffles"]
    assert world.dealer.batches[-1] == ["Seal", "CreateShuffle", "Deal"]


def flop_and_record(world: World) -> tuple[list[ev.CardsDealt], ShuffleState]:
    shuffle = shuffle_id_of(world.table_id, 1)
    dealt = [e for e in table_events(world) if isinstance(e, ev.CardsDealt) and e.seat is None]
    return dealt, world.dealer.app.get(shuffle)[0]


def test_a_crash_before_a_batch_is_appended_is_finished_by_the_next_instance_with_the_same_cards(
    world: World,
) -> None:
    world.passive()
    world.store.fail_next, world.store.fail_after = True, 1  # the flop's append is lost
    with pytest.raises(RuntimeError):
        world.passive()
    board, record = flop_and_record(world)
    assert board == [] and record.dealt_count == 8  # the dealer dealt the burn and flop
    table = world.instance().drive(world.table_id)
    board, record = flop_and_record(world)
    assert record.dealt_count == 8  # the same key: the same cards, none dealt twice
    burn_and_flop = [h for h in record.history[-2:] if isinstance(h, dealer_events.CardsDealt)]
    assert len(burn_and_flop) == 2
    assert [(*e.burned, *e.cards) for e in board] == [
        tuple(c for h in burn_and_flop for c in h.cards)
    ]
    assert table.state.engine.hand is not None and len(table.state.engine.hand.board) == 3


def test_a_crash_after_the_boundary_batch_is_finished_with_the_same_batch_and_cards(
    world: World,
) -> None:
    """The batch (close, seal, create, hole cards) went through; the table's append of it was
    lost. The next instance plans the same batch from the same state: the dealer replays each
    command (the same reveal, the same hole cards), deals nothing twice, and the cards the
    table records are the ones in the dealer's record."""
    world.to_last_action()
    world.store.fail_next, world.store.fail_after = True, 1  # the boundary's append is lost
    with pytest.raises(RuntimeError):
        world.passive()
    hole = shuffle_id_of(world.table_id, 2)
    first = world.dealer.batches[-1]
    assert first == ["Close", "Seal", "CreateShuffle", "Deal"]
    assert world.dealer.app.get(hole)[0].dealt_count == 4
    table = world.instance().drive(world.table_id)
    assert world.dealer.batches[-1] == first
    record = world.dealer.app.get(hole)[0]
    assert record.dealt_count == 4  # the Deal's key: the same cards, none dealt again
    dealt = [e for e in table_events(world) if isinstance(e, ev.CardsDealt) and e.seat is not None]
    dealt = dealt[-2:]  # hand 2's hole cards, two players
    first_deal = record.history[0]
    assert isinstance(first_deal, dealer_events.CardsDealt)
    assert sorted(c for e in dealt for c in e.cards) == sorted(first_deal.cards)
    assert table.state.engine.hand is not None and table.state.engine.hand.number == 2
    revealed = [e for e in table_events(world) if isinstance(e, events_pb2.ShuffleRevealed)]
    # The reveal recorded is the dealer's (a plan's placeholder never reaches the record).
    assert [e.hand for e in revealed] == [1]
    seed = world.dealer.app.get(shuffle_id_of(world.table_id, 1))[0].revealed_seed
    assert seed is not None and seed.hex() in revealed[0].reveal_json


def test_two_instances_taking_the_same_steps_append_them_once(world: World) -> None:
    world.passive()
    world.store.fail_next, world.store.fail_after = True, 1  # the flop is left to others
    with pytest.raises(RuntimeError):
        world.passive()
    stale = world.app.current(world.table_id)  # this instance still stands before the flop
    other = world.instance()
    after = other.drive(world.table_id)
    appends = len(world.store.appends)
    assert world.app.drive(world.table_id, stale).version == after.version
    assert len(world.store.appends) == appends  # its append found the other's done
    board, record = flop_and_record(world)
    assert len(board) == 1 and record.dealt_count == 8


class RakeLedger(NullLedger):
    """NullLedger remembering the rake it was asked to move, by hand."""

    def __init__(self) -> None:
        self.raked: list[tuple[int, int]] = []

    def rake(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        self.raked.append((hand, amount))


def test_a_raked_settlement_never_joins_the_command_that_ends_the_hand() -> None:
    """Rake moves chips in the ledger: a command that then lost its append would leave the
    house paid for a hand that never ended, so the settlement is the next append's first step."""
    store, dealer, ledger = Store(), InProcessDealer(), RakeLedger()
    app = TableApplication(store, dealer, ledger, LibraryRanker(), NoScheduler())
    config = TableConfig(
        game=TEXAS_HOLDEM, seats=2, small_blind=10, big_blind=20, rake_basis_points=1000
    )
    table_id = app.create_table(TableSpec(config, table_id="t1"), "house", "create").table_id
    for seat, player in enumerate(("alice", "bob")):
        app.join(table_id, player, seat, 200, "", f"join-{player}")
    world = World(store, dealer, app, table_id)
    world.to_last_action()
    appends = len(store.appends)
    world.passive()  # the second show ends the hand
    last, between = store.appends[appends:]
    assert last[:2] == ["CommandAccepted", "CardsShown"] and "HandEnded" in last
    assert "RakeSettled" not in last
    assert between[0] == "RakeSettled"
    assert ledger.raked == [(1, 4)]  # 10% of the 40 chips of blinds
