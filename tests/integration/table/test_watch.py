"""WatchTable: a fresh view first, then events; resumable after a disconnect; tables listed."""

from __future__ import annotations

from croupier.table.v1 import table_pb2
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    passive_action,
    seat,
    view_of,
)


def test_a_resumed_watch_continues_right_after_the_last_version_seen(platform: Platform):
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    first = alice.WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
    opening = next(first)
    assert opening.HasField("view") and opening.view.viewer_seat == 0
    act(alice, table_id, 1, table_pb2.ACTION_CALL)
    seen = next(first).event.version
    first.cancel()  # the client drops its stream
    act(view_and_stub(platform, table_id), table_id, 1, table_pb2.ACTION_CHECK)
    resumed = alice.WatchTable(table_pb2.WatchTableRequest(table_id=table_id, from_version=seen))
    versions = []
    for message in resumed:
        assert message.HasField("event")  # no view when resuming: the events after `seen`
        versions.append(message.event.version)
        if message.event.WhichOneof("event") == "cards_dealt":
            break
    resumed.cancel()
    assert versions[0] == seen + 1
    assert versions == sorted(versions) and min(versions) > seen


def view_and_stub(platform: Platform, table_id: str):
    """The stub of the seat that is to act now."""
    view = view_of(platform.table("alice"), table_id)
    return platform.table({0: "alice", 1: "bob"}[view.to_act])


def test_list_tables_names_the_table_with_its_players(platform: Platform):
    table_id = create_table(platform, seats=4, min_players_to_start=3)
    seat(platform, table_id, "alice", 0, 200)
    response = platform.table("alice").ListTables(table_pb2.ListTablesRequest())
    listed = {t.table_id: t for t in response.tables}
    assert listed[table_id].players == 1
    assert listed[table_id].options.game == table_pb2.GAME_TEXAS_HOLDEM


def test_a_player_who_sits_out_is_not_dealt_in(platform: Platform):
    table_id = create_table(platform, seats=3, min_players_to_start=3)
    alice = seat(platform, table_id, "alice", 0, 200)
    alice.SitOut(table_pb2.SitOutRequest(table_id=table_id, idempotency_key="out"))
    seat(platform, table_id, "bob", 1, 200)
    seat(platform, table_id, "carol", 2, 200)
    assert not view_of(alice, table_id).hand_in_progress  # only two sit in: not enough yet
    alice.SitIn(table_pb2.SitInRequest(table_id=table_id, idempotency_key="in"))
    view = view_of(alice, table_id)
    assert view.hand_in_progress
    assert {s.seat for s in view.seats if s.in_hand} == {0, 1, 2}


def test_an_action_request_carries_what_the_seat_to_act_may_do(platform: Platform):
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    stream = alice.WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
    next(stream)  # the opening view
    act(view_and_stub(platform, table_id), table_id, 1, table_pb2.ACTION_CALL)
    for message in stream:
        if message.event.WhichOneof("event") == "action_requested":
            requested = message.event.action_requested
            break
    stream.cancel()
    stub = platform.table({0: "alice", 1: "bob"}[requested.seat])
    view = view_of(stub, table_id)
    assert view.to_act == requested.seat
    names = {
        table_pb2.Action.Name(a.action).removeprefix("ACTION_").lower().replace("_", "-")
        for a in view.legal_actions
    }
    assert set(requested.legal_actions) == names
    by_action = {a.action: a for a in view.legal_actions}
    bet = by_action.get(table_pb2.ACTION_RAISE) or by_action[table_pb2.ACTION_BET]
    assert (requested.min_to, requested.max_to) == (bet.min_amount, bet.max_amount)
    call = by_action.get(table_pb2.ACTION_CALL)
    assert requested.to_call == (call.min_amount if call else 0)


def test_watchers_on_either_instance_see_every_event_once_in_order(platform: Platform):
    """Instance one publishes its own appends locally; instance two learns them from Redis.
    Commands alternate between the instances, so each stream mixes both paths."""
    assert platform.start_instance is not None
    second = platform.start_instance()
    table_id = create_table(platform, seats=2)
    seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    stubs = {
        "one": {name: platform.table(name) for name in ("alice", "bob")},
        "two": {name: platform.table(name, port=second) for name in ("alice", "bob")},
    }
    streams = {
        where: stubs[where]["alice"].WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
        for where in stubs
    }
    start = {where: next(stream).view.version for where, stream in streams.items()}
    last = 0
    for n in range(6):
        where = ("one", "two")[n % 2]
        view = view_of(stubs[where]["alice"], table_id)
        if not view.hand_in_progress or view.to_act < 0:
            break
        stub = stubs[where][("alice", "bob")[view.to_act]]
        action, amount, cards = passive_action(view_of(stub, table_id))
        last = act(stub, table_id, view.hand_number, action, amount, cards).version
    assert last > 0
    for where, stream in streams.items():
        versions = []
        for message in stream:
            versions.append(message.event.version)
            if message.event.version >= last:
                break
        stream.cancel()
        # Every version after the opening view once, in order (CommandAccepted is not
        # streamed, so only a subset of the numbers appears, but never twice or backwards).
        assert versions == sorted(set(versions)), where
        assert versions[0] > start[where] and versions[-1] == last, where
