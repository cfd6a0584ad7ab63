"""WatchTable: a fresh view first, then events; resumable after a disconnect; tables listed;
batched (`WatchTableRequest.batch`) the same events in the same order, several a message."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import cast

import pytest
import redis

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.shared.eventstore.redis_store import Entry
from services.table.application import table_stream
from tests.integration.table.conftest import (
    Platform,
    WatchStream,
    act,
    create_table,
    events_in,
    passive_action,
    seat,
    view_of,
    wait_for_turn,
)

# A stream that stops short of what a test waits for fails the test instead of hanging it.
STREAM_TIMEOUT_S = 30


def play_passively(
    stubs: dict[str, table_pb2_grpc.TableServiceStub], table_id: str, actions: int
) -> int:
    """Up to `actions` passive actions by whoever is to act; the last action's version."""
    last = 0
    wait_for_turn(next(iter(stubs.values())), table_id)
    for _ in range(actions):
        view = view_of(next(iter(stubs.values())), table_id)
        if not view.hand_in_progress or view.to_act < 0:
            break
        stub = stubs[list(stubs)[view.to_act]]
        action, amount, cards = passive_action(view_of(stub, table_id))
        last = act(stub, table_id, view.hand_number, action, amount, cards).version
    assert last > 0
    return last


def read_through(stream: WatchStream, version: int) -> list[table_pb2.WatchTableResponse]:
    """The stream's messages up to the first one with an event at `version` or later."""
    messages: list[table_pb2.WatchTableResponse] = []
    for message in stream:
        messages.append(message)
        if any(e.version >= version for e in events_in(message)):
            break
    stream.cancel()
    return messages


def events_through(
    messages: Iterable[table_pb2.WatchTableResponse], version: int
) -> list[events_pb2.TableEvent]:
    return [e for m in messages for e in events_in(m) if e.version <= version]


def stored_entries(redis_url: str, table_id: str) -> dict[int, dict[bytes, bytes]]:
    """The table's stream as stored: each version's entry fields (type, idem: its append)."""
    client = redis.Redis.from_url(redis_url)
    try:
        # A client without decode_responses: ids and fields are bytes.
        entries = cast(list[Entry], client.xrange(table_stream(table_id)))
    finally:
        client.close()
    return {int(fields[b"version"]): fields for _, fields in entries}


def streamed_versions(redis_url: str, table_id: str, after: int, through: int) -> list[int]:
    """The stored versions in (after, through] a viewer is sent: all but the table's own
    bookkeeping (commands' keys, the positions its deals name at the dealer)."""
    return [
        version
        for version, fields in sorted(stored_entries(redis_url, table_id).items())
        if after < version <= through and fields[b"type"] not in BOOKKEEPING
    ]


BOOKKEEPING = (b"croupier.table.v1.CommandAccepted", b"croupier.table.v1.ShuffleDealt")


def test_a_resumed_watch_continues_right_after_the_last_version_seen(platform: Platform) -> None:
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


def view_and_stub(platform: Platform, table_id: str) -> table_pb2_grpc.TableServiceStub:
    """The stub of the seat that is to act now."""
    view = view_of(platform.table("alice"), table_id)
    return platform.table({0: "alice", 1: "bob"}[view.to_act])


def test_list_tables_names_the_table_with_its_players(platform: Platform) -> None:
    table_id = create_table(platform, seats=4, min_players_to_start=3)
    seat(platform, table_id, "alice", 0, 200)
    response = platform.table("alice").ListTables(table_pb2.ListTablesRequest())
    listed = {t.table_id: t for t in response.tables}
    assert listed[table_id].players == 1
    assert listed[table_id].options.game == table_pb2.GAME_TEXAS_HOLDEM


def test_a_player_who_sits_out_is_not_dealt_in(platform: Platform) -> None:
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


def test_an_action_request_carries_what_the_seat_to_act_may_do(platform: Platform) -> None:
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


@pytest.mark.parametrize("batch", [False, True], ids=["one-per-message", "batched"])
def test_watchers_on_either_instance_see_every_event_once_in_order(
    platform: Platform, batch: bool
) -> None:
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
        where: stubs[where]["alice"].WatchTable(
            table_pb2.WatchTableRequest(table_id=table_id, batch=batch),
            timeout=STREAM_TIMEOUT_S,
        )
        for where in stubs
    }
    start = {where: next(stream).view.version for where, stream in streams.items()}
    wait_for_turn(stubs["one"]["alice"], table_id)
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
        messages = read_through(stream, last)
        assert all(m.HasField("events" if batch else "event") for m in messages), where
        versions = [e.version for m in messages for e in events_in(m)]
        # Every version after the opening view once, in order (CommandAccepted is not
        # streamed, so only a subset of the numbers appears, but never twice or backwards).
        assert versions == sorted(set(versions)), where
        assert versions[0] > start[where] and last in versions, where
        assert versions[-1] == last or batch, where  # (a batch may run on past `last`)


def test_batched_and_unbatched_watchers_see_the_same_events_in_the_same_order(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=2)
    players = {"a": seat(platform, table_id, "a", 0, 200)}
    viewers = {"a": players["a"], "spectator": platform.table("spectator")}
    streams = {
        (viewer, batch): stub.WatchTable(
            table_pb2.WatchTableRequest(table_id=table_id, batch=batch), timeout=STREAM_TIMEOUT_S
        )
        for viewer, stub in viewers.items()
        for batch in (False, True)
    }
    opening = {key: next(stream).view.version for key, stream in streams.items()}
    assert len(set(opening.values())) == 1  # all opened on the same state
    players["b"] = seat(platform, table_id, "b", 1, 200)  # the hand starts: hole cards dealt
    last = play_passively(players, table_id, 10)
    got = {key: read_through(stream, last) for key, stream in streams.items()}
    for viewer in viewers:
        plain, batched = got[(viewer, False)], got[(viewer, True)]
        assert all(m.HasField("event") for m in plain)
        assert all(m.HasField("events") and m.events.events for m in batched)
        assert events_through(batched, last) == events_through(plain, last), viewer
        assert len(batched) < len(plain)  # several events a message
    # Redaction per viewer holds in batches: the player's own hole cards, the spectator's ??.
    dealt = {
        viewer: [
            list(e.cards_dealt.cards)
            for e in events_through(got[(viewer, True)], last)
            if e.WhichOneof("event") == "cards_dealt"
            and e.cards_dealt.HasField("seat")
            and e.cards_dealt.seat == 0
        ]
        for viewer in viewers
    }
    assert dealt["a"] and all("??" not in cards for cards in dealt["a"])
    assert all(set(cards) == {"??"} for cards in dealt["spectator"]), dealt["spectator"]
    # Every streamed version once, in order, none missing.
    start = next(iter(opening.values()))
    versions = [e.version for e in events_through(got[("a", True)], last)]
    assert versions == streamed_versions(redis_url, table_id, start, last)
    # A caught-up batched watcher gets at least whole appends: no append's events are split
    # over two messages.
    stored = stored_entries(redis_url, table_id)
    messages_of_append: dict[bytes, set[int]] = defaultdict(set)
    for i, message in enumerate(got[("a", True)]):
        for event in message.events.events:
            messages_of_append[stored[event.version][b"idem"]].add(i)
    assert all(len(messages) == 1 for messages in messages_of_append.values())


def test_a_batched_watch_resumes_right_after_the_version_given(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=2)
    players = {"alice": seat(platform, table_id, "alice", 0, 200)}
    players["bob"] = seat(platform, table_id, "bob", 1, 200)
    alice = players["alice"]
    first = alice.WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, batch=True), timeout=STREAM_TIMEOUT_S
    )
    assert next(first).HasField("view")
    play_passively(players, table_id, 1)
    seen = next(first).events.events[-1].version
    first.cancel()  # the client drops its stream; the table goes on without it
    last = play_passively(players, table_id, 6)
    resumed = {
        batch: read_through(
            alice.WatchTable(
                table_pb2.WatchTableRequest(table_id=table_id, from_version=seen, batch=batch),
                timeout=STREAM_TIMEOUT_S,
            ),
            last,
        )
        for batch in (False, True)
    }
    assert not any(m.HasField("view") for m in resumed[True])  # resuming: events only
    events = events_through(resumed[True], last)
    assert events == events_through(resumed[False], last)
    # Every version after `seen` alice may be sent, once, in order, none missing.
    assert [e.version for e in events] == streamed_versions(redis_url, table_id, seen, last)
