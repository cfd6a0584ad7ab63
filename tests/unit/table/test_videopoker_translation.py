"""Video poker's translation between croupier.videopoker.v1 and the rules' values."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from croupier.table.v1 import events_pb2 as table_events_pb2
from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import videopoker_pb2
from services.games import contract as c
from services.games.videopoker import RULES, Deal, Hold, MachineConfig
from services.games.videopoker import events as ev
from services.games.videopoker.returns import RETURNS
from services.shared import errors
from services.table.games import videopoker as vp
from services.table.games.adapter import Rounds, Seating
from services.table.games.catalog import CATALOG
from tests.unit.games.videopoker.machine import Machine

ROYAL_DEAL = ("Ah", "Kh", "Qh", "Jh", "2c", "9d")
LINE = ("Th", "3s", "4s", "5s", "6s")


def _played() -> Machine:
    """A machine through every kind of event: a standard round, a round with a dealt split
    card, one whose split card is undealt and drawn, a voided round, a leave."""
    machine = Machine(decks={"deal": ROYAL_DEAL, "line-1": LINE})
    machine.sit(10_000)
    machine.deal(3, 5)
    machine.hold(0, 1, 2, 3)
    machine.do(c.AddChips(0, 500, by="alice"))
    machine.decks = {"deal": ROYAL_DEAL, "split": ("3h",)}  # position 1, one rank up
    machine.deal(3, 10)
    machine.hold(1)
    machine.decks = {"deal": ROYAL_DEAL, "split": ("Ac",), "line-1": ("9d", *LINE)}
    machine.deal(3, 10)
    machine.hold(0, 1, 2, 3)
    # A round voided before its deal: the bet reaches the house, then comes back.
    machine.do(c.Move(0, Deal(3, 1, "jacks-9-6"), by="alice"))
    request = RULES.pending_chance(machine.state)
    assert isinstance(request, c.Transfer)
    machine.do(machine.answer(request))
    machine.do(c.Void("the dealer stayed down"))
    machine.run()
    machine.deal(3, 1)
    machine.do(c.Leave(0, by="alice"))
    machine.hold()
    return machine


@pytest.fixture(scope="module")
def played() -> Machine:
    return _played()


def test_every_event_type_is_stored_and_read_back_unchanged(played: Machine) -> None:
    codec = vp.ADAPTER.events
    assert {type(e) for e in played.events} == set(ev.EVENT_TYPES.values())
    assert len(codec.message_types()) == len(ev.EVENT_TYPES)
    for event in played.events:
        message = codec.to_message(event)
        assert message.DESCRIPTOR.full_name == f"croupier.videopoker.v1.{type(event).__name__}"
        again = type(message).FromString(message.SerializeToString())
        assert codec.from_message(again) == event


def test_a_watcher_gets_each_event_in_the_games_wrapper(played: Machine) -> None:
    codec = vp.ADAPTER.events
    for event in played.events:
        wrapped = table_events_pb2.TableEvent()
        codec.table_event(codec.to_message(event), wrapped)
        assert wrapped.WhichOneof("event") == "videopoker"
        member = wrapped.videopoker.WhichOneof("event")
        assert member is not None
        assert codec.from_message(getattr(wrapped.videopoker, member)) == event


def test_another_games_message_is_not_a_video_poker_event() -> None:
    assert vp.ADAPTER.events.from_message(table_events_pb2.BuyInPosted()) is None


def test_options_default_to_every_pay_table_at_one_chip_a_coin() -> None:
    config = vp.config_from_options(videopoker_pb2.VideoPokerOptions())
    assert config == MachineConfig()
    chosen = videopoker_pb2.VideoPokerOptions(paytables=["deuces-wild"], denomination=5)
    assert vp.config_from_options(chosen, seats=1) == MachineConfig(("deuces-wild",), 5)
    assert vp.config_from_options(chosen, 1, 10, 500) == MachineConfig(("deuces-wild",), 5, 10, 500)
    assert vp.config_from_options(vp.options_to_proto(MachineConfig(("deuces-wild",), 5))) == (
        MachineConfig(("deuces-wild",), 5)
    )


@pytest.mark.parametrize(
    ("options", "seats", "says"),
    [
        (videopoker_pb2.VideoPokerOptions(paytables=["jacks-8-5"]), 0, "unknown pay table"),
        (videopoker_pb2.VideoPokerOptions(paytables=["jacks-9-6"] * 2), 0, "twice"),
        (videopoker_pb2.VideoPokerOptions(denomination=-1), 0, "denomination"),
        (videopoker_pb2.VideoPokerOptions(), 6, "one seat"),
        (videopoker_pb2.VideoPokerOptions(denomination=2**50), 0, "at most"),
    ],
)
def test_options_that_name_no_machine_are_refused(
    options: videopoker_pb2.VideoPokerOptions, seats: int, says: str
) -> None:
    with pytest.raises(errors.InvalidArgument, match=says):
        vp.config_from_options(options, seats)


def test_moves_read_as_the_rules_moves() -> None:
    deal = Deal(10, 10, "double-double-bonus-9-6")
    hold = Hold(4, (0, 3))
    assert vp.move_from_proto(vp.move_to_proto(deal)) == deal
    assert vp.move_from_proto(vp.move_to_proto(hold)) == hold
    with pytest.raises(errors.InvalidArgument, match=r"deal .* or hold"):
        vp.move_from_proto(videopoker_pb2.VideoPokerMove())


def test_a_hold_for_round_zero_is_for_the_round_in_play() -> None:
    machine = Machine(decks={"deal": ROYAL_DEAL, "line-1": LINE})
    machine.sit(1000)
    machine.deal(3, 5)
    machine.do(c.Move(0, vp.move_from_proto(vp.move_to_proto(Hold(0, (0, 1, 2, 3)))), by="alice"))
    machine.run()
    assert machine.state.last is not None and machine.state.last.hold == (0, 1, 2, 3)
    with pytest.raises(Exception, match="no round is in play"):
        RULES.decide(machine.state, c.Move(0, Hold(0, ()), by="alice"))


def test_the_view_shows_the_round_in_play_and_the_players_moves() -> None:
    machine = Machine(decks={"deal": ROYAL_DEAL, "split": ("3h",)})
    machine.sit(1000)
    machine.deal(3, 10)
    view = vp.view_to_proto(RULES.view_for(machine.state, 0))
    assert view.player == "alice" and view.credits == 1000 - 30
    assert view.round.phase == videopoker_pb2.PHASE_HOLDING
    assert list(view.round.cards) == ["Ah", "Kh|Ah", "Qh", "Jh", "2c"]
    assert view.round.split_position == 1 and not view.round.held
    assert [d.name for d in view.round.commitments] == [
        "deal",
        "split",
        "line-1",
        "line-2",
        "line-3",
    ]
    assert all(d.commitment for d in view.round.commitments)
    assert view.moves.hold_round == view.round.number and not view.moves.deal
    assert not view.HasField("last")
    spectator = vp.view_to_proto(RULES.view_for(machine.state, None))
    assert list(spectator.round.cards) == list(view.round.cards)
    assert spectator.moves == videopoker_pb2.LegalMoves()


def test_after_the_round_the_view_shows_every_lines_result() -> None:
    machine = Machine(decks={"deal": ROYAL_DEAL, "line-1": LINE})
    machine.sit(1000)
    machine.deal(3, 5)
    machine.hold(0, 1, 2, 3)
    view = vp.view_to_proto(RULES.view_for(machine.state, 0))
    assert not view.HasField("round")
    last = view.last
    assert last.phase == videopoker_pb2.PHASE_ENDED and last.held
    assert list(last.held_positions) == [0, 1, 2, 3]
    assert [r.line for r in last.results] == [1, 2, 3]
    assert last.results[0].hand == "royal-flush" and last.results[0].win == 4000
    assert last.win == sum(r.win for r in last.results)
    assert view.moves.deal and list(view.moves.coins) == [1, 2, 3, 4, 5, 10]
    assert view.moves.credits == view.credits == 1000 - 15 + last.win


def test_every_pay_table_is_listed_with_its_exact_returns() -> None:
    listed = {table.name: table for table in vp.list_paytables().paytables}
    assert set(listed) == {"jacks-9-6", "deuces-wild", "double-double-bonus-9-6"}
    jacks = listed["jacks-9-6"]
    assert jacks.lines[0].hand == "royal-flush" and jacks.lines[0].pays_at_max == 800
    assert jacks.lines[0].pays == 250 and jacks.split_five_of_a_kind == 200
    assert jacks.split_in_deal == "1/4" and listed["deuces-wild"].wild_rank == "2"
    assert round(jacks.exact_return.percent, 4) == 99.5439
    assert round(listed["deuces-wild"].exact_return.percent, 4) == 100.7620
    assert round(listed["double-double-bonus-9-6"].exact_return.percent, 4) == 98.9808
    for name, table in listed.items():
        for listed_return, exact in (
            (table.exact_return, RETURNS[name].standard),
            (table.split_exact_return, RETURNS[name].split),
        ):
            assert Fraction(listed_return.fraction) == exact
            assert listed_return.percent == pytest.approx(float(exact * 100))


def test_the_split_feature_returns_listed_are_the_published_figures() -> None:
    """docs/games/video-poker.md: 83.1203%, 78.4411%, 97.3376% (the analyzer's exact
    fractions; tests/unit/videopoker_analysis/test_exact.py recomputes Jacks or Better's)."""
    published = {"jacks-9-6": 83.1203, "deuces-wild": 78.4411, "double-double-bonus-9-6": 97.3376}
    assert {name: round(float(r.split * 100), 4) for name, r in RETURNS.items()} == published


def test_the_catalog_finds_video_poker_by_name_and_options() -> None:
    assert CATALOG.named("video-poker") is vp.ADAPTER
    options = table_pb2.TableOptions(videopoker=videopoker_pb2.VideoPokerOptions())
    assert CATALOG.for_options(options) is vp.ADAPTER


def test_options_round_trip_through_the_adapter() -> None:
    options = table_pb2.TableOptions(
        seats=1,
        min_buy_in=10,
        max_buy_in=5000,
        videopoker=videopoker_pb2.VideoPokerOptions(paytables=["jacks-9-6"], denomination=2),
    )
    adapter = vp.ADAPTER
    config = adapter.config_from_options(options)
    assert adapter.opening_events(config) == ()
    state = adapter.initial_state(options)
    assert state == RULES.initial_state(config)
    back = table_pb2.TableOptions()
    adapter.fill_options(state, back)
    assert back == options
    assert adapter.seat_count(state) == 1
    assert adapter.rounds(state) == Rounds(None, 0)
    with pytest.raises(errors.InvalidArgument, match="range"):
        adapter.config_from_options(table_pb2.TableOptions(min_buy_in=50, max_buy_in=10))


def test_an_act_at_a_machine_is_read_from_its_videopoker_member() -> None:
    adapter = vp.ADAPTER
    deal = vp.move_to_proto(Deal(5, 10, "deuces-wild"))
    assert adapter.move_from_request(table_pb2.ActRequest(videopoker=deal)) == (
        Deal(5, 10, "deuces-wild"),
        None,
    )
    hold = vp.move_to_proto(Hold(0, (1, 2)))
    request = table_pb2.ActRequest(hand_number=4, videopoker=hold)
    assert adapter.move_from_request(request) == (Hold(4, (1, 2)), None)
    clash = table_pb2.ActRequest(hand_number=4, videopoker=vp.move_to_proto(Hold(3, ())))
    with pytest.raises(errors.InvalidArgument, match="disagree"):
        adapter.move_from_request(clash)
    for wrong in (
        table_pb2.ActRequest(action=table_pb2.ACTION_CALL),
        table_pb2.ActRequest(videopoker=deal, cards=["As"]),
    ):
        with pytest.raises(errors.InvalidArgument, match=r"ActRequest\.videopoker"):
            adapter.move_from_request(wrong)
    assert adapter.sit_in_option(table_pb2.SitInRequest()) is None


def test_the_adapter_fills_the_view_rounds_seating_and_history() -> None:
    machine = Machine(decks={"deal": ROYAL_DEAL, "line-1": LINE})
    machine.sit(1000)
    machine.deal(3, 5)
    adapter = vp.ADAPTER
    assert adapter.rounds(machine.state) == Rounds(1, 1)
    message = table_pb2.TableView()
    adapter.fill_view(RULES.view_for(machine.state, 0), message, {})
    assert message.WhichOneof("game_view") == "videopoker"
    assert message.phase == "holding" and message.videopoker.moves.hold_round == 1
    machine.hold(0, 1, 2, 3)
    assert adapter.rounds(machine.state) == Rounds(None, 1)
    seated, left = ev.PlayerSeated(0, "alice", 5), ev.PlayerLeft(0, "alice", 5)
    assert adapter.seating(seated) == Seating(0, "alice")
    assert adapter.seating(left) == Seating(0)
    starts = [adapter.round_of(e) for e in machine.events]
    assert (1, True) in starts and (1, False) in starts
    first = next(i for i, e in enumerate(machine.events) if adapter.round_of(e) == (1, True))
    last = next(i for i, e in enumerate(machine.events) if adapter.round_of(e) == (1, False))
    data, text = adapter.history(
        machine.state, {0: "alice"}, machine.events[first : last + 1], 0, False, "vp-1"
    )
    record = json.loads(data)
    assert record["table_id"] == "vp-1" and record["player"] == "alice"
    assert record["lines_drawn"][0]["hand"] == "royal-flush"
    assert "Line 1: drew Th -> Ah Kh Qh Jh Th: royal-flush" in text
