"""Video poker's translation between croupier.videopoker.v1 and the rules' values."""

from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.videopoker.v1 import videopoker_pb2
from services.games import contract as c
from services.games.videopoker import RULES, Deal, Hold, MachineConfig
from services.games.videopoker import events as ev
from services.games.videopoker.returns import RETURNS
from services.shared import errors
from services.table.games import videopoker as vp
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
    assert {type(e) for e in played.events} == set(ev.EVENT_TYPES.values())
    for event in played.events:
        message = vp.event_to_proto(event)
        assert message.DESCRIPTOR.full_name == f"croupier.videopoker.v1.{type(event).__name__}"
        again = type(message).FromString(message.SerializeToString())
        assert vp.event_from_proto(again) == event


def test_a_watcher_gets_each_event_in_its_own_member_of_the_wrapper(played: Machine) -> None:
    for event in played.events:
        wrapped = vp.wrap_event(event)
        member = wrapped.WhichOneof("event")
        assert member is not None
        assert vp.event_from_proto(getattr(wrapped, member)) == event
    assert len(vp.WRAPPER_FIELDS) == len(ev.EVENT_TYPES)


def test_something_else_is_not_read_as_a_video_poker_event() -> None:
    with pytest.raises(TypeError):
        vp.event_from_proto(videopoker_pb2.Deal())
    with pytest.raises(TypeError):
        vp.event_to_proto(Deal(3, 5, "jacks-9-6"))  # type: ignore[arg-type]


def test_options_default_to_every_pay_table_at_one_chip_a_coin() -> None:
    config = vp.config_from_options(videopoker_pb2.VideoPokerOptions())
    assert config == MachineConfig()
    chosen = videopoker_pb2.VideoPokerOptions(paytables=["deuces-wild"], denomination=5)
    assert vp.config_from_options(chosen, seats=1) == MachineConfig(("deuces-wild",), 5)
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
