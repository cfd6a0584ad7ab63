"""Spit through the real table service over loopback gRPC, with the real dealer, ledger and
Redis: a race for one middle pile between two real clients (the first the event store
accepts wins; the other is re-checked against the new top card and refused naming it), bad
input refused with the top cards and nothing changed, the slap timeout, and two real-time
bots (services/bots/spit_player.py) playing whole games through the public API, both
clients' mirrors converging on the table's own view, the stakes paid through the ledger."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import grpc
import pytest

from croupier.spit.v1 import spit_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots import spit_wire
from services.bots.spit_player import Reaction, SpitPlayer
from services.games.spit import RULES
from services.games.spit.cards import FULL_DECK
from services.games.spit.state import SpitState
from services.games.spit.views import view_for
from services.shared import auth
from tests.integration.table.conftest import Platform, events_in, new_table_id, seat, view_of
from tests.unit.games.spit.support import layout_order

S = spit_pb2


def create_spit_table(
    platform: Platform, *, stake: int = 0, slap_ms: int = 0, stall_ms: int | None = None
) -> str:
    table_id = new_table_id()
    options = S.SpitOptions(stake=stake, slap_ms=slap_ms)
    if stall_ms is not None:
        options.stall_ms = stall_ms
    platform.table("house", auth.Role.ADMIN).CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=table_pb2.TableOptions(min_buy_in=10, max_buy_in=1_000, spit=options),
        )
    )
    return table_id


def wait_for(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    ready: Callable[[table_pb2.TableView], bool],
    timeout_s: float = 30.0,
) -> table_pb2.TableView:
    deadline = time.monotonic() + timeout_s
    while True:
        view = view_of(stub, table_id)
        if ready(view):
            return view
        assert time.monotonic() < deadline, f"no such view in {timeout_s} s: {view}"
        time.sleep(0.01)


def phase(name: int) -> Callable[[table_pb2.TableView], bool]:
    return lambda v: v.spit.phase == name


def move(key: str, table_id: str, spit: S.SpitMove) -> table_pb2.ActRequest:
    return table_pb2.ActRequest(table_id=table_id, idempotency_key=key, spit=spit)


def ready(table_id: str, key: str) -> table_pb2.ActRequest:
    return move(key, table_id, S.SpitMove(ready=S.Ready()))


def racing_deck() -> list[str]:
    """Seat 0's 26 cards, then seat 1's: each has a nine on its one-card pile (9h, 9s), the
    game spits 8c (seat 0's pile) and 2d (seat 1's), and no other face-up card fits."""
    named = {"9h", "5c", "5d", "Qc", "Qd", "8c", "9s", "5h", "5s", "Qh", "Qs", "2d"}
    spare = iter(c for c in FULL_DECK if c not in named)

    def side(tops: list[str], first: str) -> list[str]:
        places = [[next(spare) for _ in range(i)] + [top] for i, top in enumerate(tops)]
        return layout_order(5, places, [first] + [next(spare) for _ in range(10)])

    return side(["9h", "5c", "5d", "Qc", "Qd"], "8c") + side(["9s", "5h", "5s", "Qh", "Qs"], "2d")


def test_two_clients_racing_onto_one_pile_exactly_one_wins_the_other_sees_the_new_top(
    platform: Platform,
) -> None:
    table_id = create_spit_table(platform)
    platform.decks[f"{table_id}.hand-1"] = racing_deck()
    ann = seat(platform, table_id, "ann", 0, 100)
    bob = seat(platform, table_id, "bob", 1, 100)
    view = wait_for(ann, table_id, phase(S.PHASE_READY))
    assert [p.up for p in view.spit.seats[0].places] == ["9h", "5c", "5d", "Qc", "Qd"]
    assert [p.up for p in view.spit.seats[1].places] == ["9s", "5h", "5s", "Qh", "Qs"]
    assert view.spit.seats[0].places[4].down == 4 and view.spit.seats[0].spit == 11
    ann.Act(ready(table_id, "ready"))
    bob.Act(ready(table_id, "ready"))
    view = wait_for(ann, table_id, phase(S.PHASE_PLAYING))
    assert [list(p.cards) for p in view.spit.middle] == [["8c"], ["2d"]]
    before = view.version

    # Both race their nine onto pile 0, having seen 8c there, over their Play streams.
    start = threading.Barrier(2)
    answers: dict[str, table_pb2.PlayResponse] = {}

    def race(name: str, stub: table_pb2_grpc.TableServiceStub, card: str) -> None:
        play = S.SpitMove(
            play_card=S.PlayCard(source=0, target=0, card=card),
            expected=S.Expected(deal=1, top="8c"),
        )
        request = table_pb2.PlayRequest(act=move(f"race-{name}", table_id, play))
        start.wait()
        answers[name] = next(stub.Play(iter([request])))

    threads = [
        threading.Thread(target=race, args=("ann", ann, "9h")),
        threading.Thread(target=race, args=("bob", bob, "9s")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    won = [n for n, a in answers.items() if a.HasField("act")]
    lost = [n for n, a in answers.items() if a.HasField("error")]
    assert len(won) == 1 and len(lost) == 1, answers
    winner_card = "9h" if won == ["ann"] else "9s"
    refusal = answers[lost[0]].error
    assert refusal.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert f"is now {winner_card}" in refusal.message and "middle piles: 0 " in refusal.message

    # The event store's order is the only one: one card played on pile 0, both see it.
    view = view_of(ann, table_id)
    assert list(view.spit.middle[0].cards) == ["8c", winner_card]
    watch = platform.table("house", auth.Role.ADMIN).WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=before)
    )
    played = []
    for message in watch:
        event = message.event
        if event.WhichOneof("event") == "spit" and event.spit.HasField("card_played"):
            played.append(event.spit.card_played)
        if event.version >= view.version:
            break
    watch.cancel()
    assert [(p.card, p.target) for p in played] == [(winner_card, 0)]
    assert view_of(bob, table_id).spit.middle == view.spit.middle


def test_bad_moves_are_refused_with_the_top_cards_and_change_nothing(platform: Platform) -> None:
    table_id = create_spit_table(platform)
    platform.decks[f"{table_id}.hand-1"] = racing_deck()
    ann = seat(platform, table_id, "ann", 0, 100)
    seat(platform, table_id, "bob", 1, 100)
    view = wait_for(ann, table_id, phase(S.PHASE_READY))
    with pytest.raises(grpc.RpcError) as refused:
        ann.Act(move("early", table_id, S.SpitMove(play_card=S.PlayCard(source=0, target=0))))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert view_of(ann, table_id).version == view.version
    ann.Act(ready(table_id, "r"))
    platform.table("bob").Act(ready(table_id, "r"))
    view = wait_for(ann, table_id, phase(S.PHASE_PLAYING))
    for spit, code, words in [
        (S.SpitMove(play_card=S.PlayCard(source=1, target=0)), "INVALID_ARGUMENT", "5c"),
        (S.SpitMove(play_card=S.PlayCard(source=7, target=0)), "INVALID_ARGUMENT", "no place 7"),
        (
            S.SpitMove(play_card=S.PlayCard(source=0, target=0, card="Qc")),
            "INVALID_ARGUMENT",
            "middle piles: 0 8c, 1 2d",
        ),
        (S.SpitMove(slap=S.Slap(pile=0)), "FAILED_PRECONDITION", "being played"),
        (S.SpitMove(), "INVALID_ARGUMENT", "set one move"),
        (
            S.SpitMove(play_card=S.PlayCard(source=0, target=0, card="9x")),
            "INVALID_ARGUMENT",
            "not a card",
        ),
    ]:
        with pytest.raises(grpc.RpcError) as refused:
            ann.Act(move(f"bad-{words}", table_id, spit))
        assert refused.value.code().name == code, (spit, refused.value.details())
        assert words in (refused.value.details() or ""), refused.value.details()
    assert view_of(ann, table_id).version == view.version


def test_two_real_time_bots_race_through_a_whole_game_and_their_mirrors_are_the_streams(
    platform: Platform,
) -> None:
    """Two bots (reaction time 0) firing moves as fast as the table answers, at the same
    piles; each keeps its picture of the table from its own stream only. At the end, the
    table's single order of events, folded by a third party, gives each bot exactly the
    picture it has."""
    table_id = create_spit_table(platform, stake=10, slap_ms=2_000, stall_ms=2_000)
    names = ("ann", "bob")
    stubs = [seat(platform, table_id, name, s, 100) for s, name in enumerate(names)]
    players = [
        SpitPlayer(stub, table_id, name=name, reaction=Reaction(0, 0))
        for name, stub in zip(names, stubs, strict=True)
    ]
    stop = threading.Event()
    mirrors: dict[int, SpitState | None] = {}
    threads = [
        threading.Thread(
            target=lambda s=s, p=p: mirrors.__setitem__(s, p.play(stop, until_game_over=True))
        )
        for s, p in enumerate(players)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    stop.set()
    assert sorted(mirrors) == [0, 1], "a bot did not finish its game in 90 s"
    assert all(p.tally.accepted > 0 for p in players)
    # They raced: some moves arrived after the other's had changed the pile.
    assert sum(p.tally.refused for p in players) > 0

    config = spit_wire.config_of(view_of(stubs[0], table_id).spit)
    state = RULES.initial_state(config)
    at: dict[int, SpitState] = {}
    last = max(p.version for p in players)
    watch = platform.table("house", auth.Role.ADMIN).WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, from_version=1, batch=True)
    )
    for message in watch:
        for event in events_in(message):
            if event.WhichOneof("event") == "spit":
                record = spit_wire.event_from_proto(event.spit)
                assert record is not None
                state = RULES.apply(state, record)
            at[event.version] = state
        if message.events.events and message.events.events[-1].version >= last:
            break
    watch.cancel()
    for s, player in enumerate(players):
        mirror = mirrors[s]
        assert mirror is not None and mirror.game is not None and mirror.game.over
        assert view_for(mirror, s) == view_for(at[player.version], s)


RUN = ["9h", "Th", "Jh", "Qh", "Kh", "Ah", "2h", "3h", "4h", "5h", "6h", "7h", "8h", "9s", "Ts"]
# Where each card of the run lies (pile, bottom first): played in order, each play turns up
# the next card of the run, so seat 0 clears its layout in 15 plays onto pile 0 (8c).
RUN_PLACES = [[1], [6, 2], [10, 7, 3], [13, 11, 8, 4], [15, 14, 12, 9, 5]]


def clearing_deck() -> list[str]:
    named = {*RUN, "8c", "2d"}
    spare = iter(c for c in FULL_DECK if c not in named)
    places0 = [[RUN[i - 1] for i in pile] for pile in RUN_PLACES]
    seat0 = layout_order(5, places0, ["8c"] + [next(spare) for _ in range(10)])
    places1 = [[next(spare) for _ in range(i + 1)] for i in range(5)]
    seat1 = layout_order(5, places1, ["2d"] + [next(spare) for _ in range(10)])
    return seat0 + seat1


def run_plays() -> list[tuple[int, str]]:
    """(source pile, card) of each play that clears seat 0's layout, in order."""
    where = {n: pile for pile, cards in enumerate(RUN_PLACES) for n in cards}
    return [(where[n], RUN[n - 1]) for n in range(1, 16)]


def test_a_cleared_layout_ends_the_deal_a_slap_times_out_and_each_player_redeals_their_own(
    platform: Platform,
) -> None:
    table_id = create_spit_table(platform, stake=10, slap_ms=300)
    platform.decks[f"{table_id}.hand-1"] = clearing_deck()
    ann = seat(platform, table_id, "ann", 0, 100)
    bob = seat(platform, table_id, "bob", 1, 100)
    wait_for(ann, table_id, phase(S.PHASE_READY))
    ann.Act(ready(table_id, "r"))
    bob.Act(ready(table_id, "r"))
    top = "8c"
    wait_for(ann, table_id, phase(S.PHASE_PLAYING))
    for number, (source, card) in enumerate(run_plays()):
        play = S.SpitMove(
            play_card=S.PlayCard(source=source, target=0, card=card),
            expected=S.Expected(deal=1, top=top),
        )
        ann.Act(move(f"play-{number}", table_id, play))
        top = card
    view = wait_for(ann, table_id, phase(S.PHASE_SLAPPING))
    assert [len(p.cards) for p in view.spit.middle] == [16, 1]
    assert {d.seat for d in view.deadlines} == {0, 1}
    ann.Act(move("slap", table_id, S.SpitMove(slap=S.Slap(pile=1), expected=S.Expected(deal=1))))
    with pytest.raises(grpc.RpcError) as twice:
        ann.Act(move("slap-2", table_id, S.SpitMove(slap=S.Slap(pile=0))))
    assert twice.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # Bob never slaps: once the slap time has passed, the timeout (the workers' job; here the
    # service role) gives him the pile that is left.
    view = view_of(ann, table_id)
    (owed,) = view.deadlines
    assert owed.seat == 1
    time.sleep(max(0.0, owed.deadline_unix_ms / 1000 - time.time()))
    timeouts = platform.table("timeouts", auth.Role.SERVICE)
    applied = timeouts.ApplyTimeout(
        table_pb2.ApplyTimeoutRequest(table_id=table_id, deadline_id=owed.id)
    )
    assert applied.applied
    # Deal 2: ann holds her 10 spit cards and pile 1 (11 cards: fewer than 15, so one middle
    # pile, which only bob spits onto); bob the other 41. Each shuffle is the player's own.
    view = wait_for(ann, table_id, lambda v: v.spit.deal == 2 and v.spit.phase == S.PHASE_READY)
    assert view.spit.one_pile and len(view.spit.middle) == 1
    cards = {s.seat: s.cards for s in view.spit.seats}
    assert cards == {0: 11, 1: 41}
    assert view.spit.seats[0].spit == 0
    watch = ann.WatchTable(table_pb2.WatchTableRequest(table_id=table_id, from_version=1))
    commitments = []
    for message in watch:
        event = message.event
        if event.WhichOneof("event") == "spit" and event.spit.HasField("shuffle_committed"):
            commitments.append(
                (event.spit.shuffle_committed.round, event.spit.shuffle_committed.name)
            )
        if event.version >= view.version:
            break
    watch.cancel()
    assert commitments == [(1, "deck"), (2, "seat-0"), (2, "seat-1")]

    # Ann leaves: she concedes the game, bob takes both stakes, both stacks go back through
    # the ledger once they leave.
    ann.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    bob.LeaveTable(table_pb2.LeaveTableRequest(table_id=table_id, idempotency_key="bye"))
    wait_for(platform.table("house", auth.Role.ADMIN), table_id, lambda v: not v.seats)
    deadline = time.monotonic() + 30
    while platform.balance(f"table:{table_id}:CHIP") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert platform.balance("player:ann:CHIP") == 90
    assert platform.balance("player:bob:CHIP") == 110
