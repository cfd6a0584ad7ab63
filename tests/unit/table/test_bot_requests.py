"""CreateTable refuses a requested bot no worker could seat or play, and creates nothing."""

from __future__ import annotations

import math

import pytest

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2
from services.bots.identity import bot_buy_in
from services.bots.policies import NAMES
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared import errors
from services.shared.eventstore import InMemoryEventStore
from services.table import codec
from services.table.application import DIRECTORY_STREAM, TableApplication, TableSpec, table_stream
from services.table.bot_requests import check_bot_chips, check_requested_bots
from services.table.games import spit as spit_table
from services.table.ports import NoScheduler
from tests.fixtures.table_ports import InProcessDealer, NullLedger


def refusal(bots: list[tuple[str, float]], seats: int = 6) -> str:
    with pytest.raises(errors.InvalidArgument) as info:
        check_requested_bots(bots, seats)
    return str(info.value)


def test_every_built_in_policy_at_every_difficulty_from_0_to_1_is_accepted() -> None:
    for policy in NAMES:
        for difficulty in (0.0, 0.25, 1.0):
            check_requested_bots([(policy, difficulty)], seats=2)


def test_as_many_bots_as_seats_is_accepted_and_no_bots_is_accepted() -> None:
    check_requested_bots([("random", 0.0)] * 6, seats=6)
    check_requested_bots([], seats=2)


def test_an_unknown_policy_is_refused_naming_it_and_every_known_policy() -> None:
    message = refusal([("random", 0.5), ("equty", 0.5)])
    assert "bots[1]" in message and "'equty'" in message
    assert all(name in message for name in NAMES)


@pytest.mark.parametrize("policy", ["", "Equity", "no such policy"])
def test_an_empty_or_misspelled_policy_is_refused(policy: str) -> None:
    assert repr(policy) in refusal([(policy, 0.5)])


@pytest.mark.parametrize("difficulty", [-0.01, 1.01, 50.0, math.inf, -math.inf, math.nan])
def test_a_difficulty_outside_0_to_1_or_nan_is_refused_with_the_range(difficulty: float) -> None:
    message = refusal([("tight", difficulty)])
    assert "bots[0] (tight)" in message and "0.0..1.0" in message
    assert str(difficulty) in message


def test_more_bots_than_seats_is_refused_saying_how_many_seats_the_table_has() -> None:
    message = refusal([("random", 0.0)] * 3, seats=2)
    assert "3 bots requested" in message and "the table has 2 seats" in message


class RecordingLedger(NullLedger):
    def __init__(self) -> None:
        self.opened: list[str] = []

    def ensure_accounts(self, table_id: str, currency: str) -> None:
        self.opened.append(table_id)


class RecordingScheduler(NoScheduler):
    def __init__(self) -> None:
        self.seat_bots: list[tuple[str, int, str, float]] = []

    def schedule_seat_bot(
        self,
        table_id: str,
        index: int,
        policy: str,
        difficulty: float,
        *,
        only_if_lost: bool = False,
    ) -> None:
        self.seat_bots.append((table_id, index, policy, difficulty))


@pytest.mark.parametrize(
    "bots",
    [[("equty", 0.5)], [("equity", math.nan)], [("random", 0.0)] * 3],
    ids=["unknown policy", "nan difficulty", "more bots than seats"],
)
def test_a_refused_create_leaves_no_stream_no_ledger_accounts_and_no_seat_bot_trigger(
    bots: list[tuple[str, float]],
) -> None:
    store = InMemoryEventStore(codec.registry())
    ledger, scheduler = RecordingLedger(), RecordingScheduler()
    app = TableApplication(store, InProcessDealer(), ledger, LibraryRanker(), scheduler)
    config = TableConfig(game=TEXAS_HOLDEM, seats=2)

    with pytest.raises(errors.InvalidArgument):
        app.create_table(TableSpec(config, table_id="t1", bots=tuple(bots)), "house", "k")
    assert store.version(table_stream("t1")) == 0 and store.version(DIRECTORY_STREAM) == 0
    assert ledger.opened == [] and scheduler.seat_bots == []

    # The same table with bots it can seat is created, funded and its bots sent for.
    app.create_table(TableSpec(config, table_id="t1", bots=(("equity", 1.0),)), "house", "k")
    assert store.version(table_stream("t1")) > 0 and ledger.opened == ["t1"]
    assert scheduler.seat_bots == [("t1", 0, "equity", 1.0)]


def spit_spec(bots: tuple[tuple[str, float], ...], stake: int = 10) -> TableSpec:
    options = table_pb2.TableOptions(spit=spit_pb2.SpitOptions(stake=stake))
    game = spit_table.ADAPTER
    return TableSpec(
        game.config_from_options(options), game=game, options=options, table_id="s1", bots=bots
    )


def test_a_spit_table_seats_spit_bots_and_refuses_poker_policies_naming_the_spit_one() -> None:
    store = InMemoryEventStore(codec.registry())
    scheduler = RecordingScheduler()
    app = TableApplication(store, InProcessDealer(), NullLedger(), LibraryRanker(), scheduler)
    with pytest.raises(errors.InvalidArgument) as info:
        app.create_table(spit_spec((("tight", 0.5),)), "house", "k")
    assert "'tight'" in str(info.value) and "spit" in str(info.value)
    assert store.version(table_stream("s1")) == 0 and scheduler.seat_bots == []

    app.create_table(spit_spec((("spit", 0.5), ("spit", 1.0))), "house", "k")
    assert scheduler.seat_bots == [("s1", 0, "spit", 0.5), ("s1", 1, "spit", 1.0)]


def test_a_poker_table_refuses_the_spit_policy() -> None:
    message = refusal([("spit", 0.5)])
    assert "'spit'" in message and all(name in message for name in NAMES)


def test_a_spit_bot_brings_twenty_stakes_and_the_table_bounds_them_by_the_house_limit() -> None:
    assert bot_buy_in(0, 0, 0, 0, stake=10) == 200
    assert bot_buy_in(0, 0, 10, 150, stake=10) == 150  # within the buy-in range
    check_bot_chips(2, 0, 0, 0, 0, limit=400, stake=10)
    with pytest.raises(errors.InvalidArgument, match="20 stakes"):
        check_bot_chips(2, 0, 0, 0, 0, limit=399, stake=10)
