"""Every hand's deck takes its players' entropy, the first one included, and no hand waits for
it longer than the table's entropy windows: the hand that is next waits for the seated
players' commitments (until its commit window ends), then for the committed entropies (until
its reveal window ends), and a player who does not answer is left out.

No servers: the in-memory store of test_step_batches, the dealer and ledger of
tests/fixtures/table_ports, a table clock the test moves by hand (so the windows end only when
the test says so)."""

from __future__ import annotations

import pytest

from croupier.table.v1 import table_pb2
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared import errors
from services.shuffles.derivation import entropy_commitment
from services.table import translate
from services.table.application import TableApplication, TableSpec
from services.table.entropy_window import EntropyTiming
from services.table.ports import NoScheduler
from tests.fixtures.table_ports import InProcessDealer, NullLedger

from .test_step_batches import Store

COMMIT_MS = 1_000
REVEAL_MS = 2_000
SEEDS = {"alice": b"alice: sixteen bytes or more", "bob": b"bob: sixteen bytes or more!!"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def dealer() -> InProcessDealer:
    return InProcessDealer()


@pytest.fixture
def app(clock: Clock, dealer: InProcessDealer) -> TableApplication:
    app = TableApplication(
        Store(),
        dealer,
        NullLedger(),
        LibraryRanker(),
        NoScheduler(),
        clock=clock,
        retry_interval_s=3600,  # the test drives the table itself when it moves the clock
        entropy_timing=EntropyTiming(COMMIT_MS, REVEAL_MS),
    )
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)
    app.create_table(spec := TableSpec(config, table_id="t1"), "house", "create")
    del spec
    for seat, player in enumerate(("alice", "bob")):
        app.join("t1", player, seat, 200, "", f"join-{player}")
    return app


def rounds(app: TableApplication) -> list[table_pb2.EntropyRound]:
    return list(translate.view_to_proto(app.load("t1"), 0).entropy_rounds)


def hand_started(app: TableApplication) -> bool:
    return app.load("t1").game.rounds(app.load("t1").state).last >= 1


def commit(app: TableApplication, player: str, hand: int) -> None:
    sid = f"t1.hand-{hand}"
    app.contribute("t1", player, hand, entropy_commitment(sid, player, SEEDS[player]), b"")


def reveal(app: TableApplication, player: str, hand: int) -> None:
    app.contribute("t1", player, hand, b"", SEEDS[player])


def record(dealer: InProcessDealer, hand: int) -> tuple[list[str], list[str]]:
    """(who committed, whose entropy is in the order) of hand `hand`'s shuffle."""
    state, _ = dealer.app.get(f"t1.hand-{hand}")
    committed = [c.contributor for c in state.commitments]
    return committed, [c.contributor for c in state.commitments if c.entropy is not None]


def after(clock: Clock, app: TableApplication, ms: int) -> None:
    """Move the table's clock on and let the table go on, as its retrier would."""
    clock.now += ms
    app.keep_going("t1")


def test_the_first_hand_waits_for_commitments_then_reveals_and_mixes_both_in(
    app: TableApplication, clock: Clock, dealer: InProcessDealer
) -> None:
    (first, second) = rounds(app)[:2]
    assert (first.hand, first.phase) == (1, table_pb2.ENTROPY_PHASE_COMMIT)
    assert first.until_unix_ms == clock.now + COMMIT_MS
    assert (second.hand, second.phase) == (2, table_pb2.ENTROPY_PHASE_COMMIT)
    assert not hand_started(app)

    commit(app, "alice", 1)
    assert not hand_started(app)  # bob has not committed and the window is open
    commit(app, "bob", 1)
    # Both committed: sealed at once, without waiting for the window's end.
    sealed = [r for r in rounds(app) if r.hand == 1]
    assert sealed[0].phase == table_pb2.ENTROPY_PHASE_REVEAL
    assert sealed[0].until_unix_ms == clock.now + REVEAL_MS
    reveal(app, "alice", 1)
    assert not hand_started(app)
    reveal(app, "bob", 1)
    assert hand_started(app)  # every answer in: the hand starts at once
    assert record(dealer, 1) == (["alice", "bob"], ["alice", "bob"])


def test_a_player_who_commits_and_never_reveals_is_left_out_when_the_window_ends(
    app: TableApplication, clock: Clock, dealer: InProcessDealer
) -> None:
    commit(app, "alice", 1)
    commit(app, "bob", 1)
    reveal(app, "alice", 1)
    after(clock, app, REVEAL_MS - 1)
    assert not hand_started(app)
    after(clock, app, 1)
    assert hand_started(app)
    assert record(dealer, 1) == (["alice", "bob"], ["alice"])
    # Too late now: the order is fixed.
    with pytest.raises(errors.FailedPrecondition):
        reveal(app, "bob", 1)


def test_a_hand_nobody_contributes_to_waits_one_commit_window_and_no_longer(
    app: TableApplication, clock: Clock, dealer: InProcessDealer
) -> None:
    after(clock, app, COMMIT_MS - 1)
    assert not hand_started(app)
    after(clock, app, 1)
    assert hand_started(app)  # no commitment: nothing to reveal, nothing more to wait for
    assert record(dealer, 1) == ([], [])


def test_the_second_hand_takes_the_commitments_sent_during_the_first(
    app: TableApplication, clock: Clock, dealer: InProcessDealer
) -> None:
    for player in SEEDS:
        commit(app, player, 1)
        commit(app, player, 2)
    for player in SEEDS:
        reveal(app, player, 1)
    assert hand_started(app)
    # Hand 2's shuffle was announced with hand 1's, so it took commitments for a window of
    # its own; it is sealed once it is next.
    assert [(r.hand, r.phase) for r in rounds(app)] == [
        (2, table_pb2.ENTROPY_PHASE_COMMIT),
        (3, table_pb2.ENTROPY_PHASE_COMMIT),
    ]
