"""The table on grpc.aio (the default runtime): what only an asynchronous server shows. Open
streams hold no thread (more streams than the command pool has threads, and the table still
answers); a WatchTable or Play stream that is dropped or cancelled leaves nothing behind; an
Act whose caller went away mid-command is applied once (its retry answers the same version);
two instances serve one table; a move's copies are recorded once and the move after a
street's last is decided on the next street. The rest of tests/integration/table runs on
this runtime too."""

from __future__ import annotations

import asyncio
import time

import grpc
import grpc.aio
import pytest

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.games.poker.events import CardsDealt
from services.shared import auth
from services.table.application import TableApplication
from tests.integration.table.conftest import (
    KEY,
    Platform,
    PlayStream,
    act,
    create_table,
    events_in,
    seat,
    view_of,
    wait_for_turn,
)
from tests.integration.table.test_idempotency import stored_events

# More than the command pool's threads (RuntimeSettings.max_workers, 32 in these tests): on
# the sync server each would hold one of them and the table would stop answering.
STREAMS = 120
# Copies of one Act sent at once (more than the command pool's threads).
COPIES = 40


def heads_up(
    platform: Platform,
) -> tuple[str, table_pb2_grpc.TableServiceStub, table_pb2_grpc.TableServiceStub]:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    bob = seat(platform, table_id, "bob", 1, 200)
    assert wait_for_turn(alice, table_id).to_act == 0
    return table_id, alice, bob


def call_or_check(table_id: str, view: table_pb2.TableView, key: str) -> table_pb2.ActRequest:
    """The seat to act's call, or its check when it owes nothing, under `key`."""
    calls = any(a.action == table_pb2.ACTION_CALL for a in view.legal_actions)
    return table_pb2.ActRequest(
        table_id=table_id,
        hand_number=view.hand_number,
        action=table_pb2.ACTION_CALL if calls else table_pb2.ACTION_CHECK,
        idempotency_key=key,
    )


def test_open_streams_hold_no_thread_and_every_watcher_gets_the_next_event(
    platform: Platform,
) -> None:
    table_id, alice, _ = heads_up(platform)
    stub = platform.table("rail", auth.Role.PLAYER)
    streams = [
        stub.WatchTable(table_pb2.WatchTableRequest(table_id=table_id, batch=True))
        for _ in range(STREAMS)
    ]
    try:
        for stream in streams:
            assert next(stream).HasField("view")  # every stream is open and served
        before = view_of(alice, table_id)
        acted = alice.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                hand_number=before.hand_number,
                action=table_pb2.ACTION_CALL,
                idempotency_key="alice-call",
            ),
            timeout=30,
        )
        for stream in streams:
            seen: list[int] = []
            while acted.version not in seen:
                seen += [event.version for event in events_in(next(stream))]
    finally:
        for stream in streams:
            stream.cancel()


def test_dropped_streams_leave_no_watcher_behind(platform: Platform) -> None:
    table_id, alice, _ = heads_up(platform)
    stub = platform.table("rail", auth.Role.PLAYER)
    streams = [stub.WatchTable(table_pb2.WatchTableRequest(table_id=table_id)) for _ in range(10)]
    for stream in streams:
        assert next(stream).HasField("view")
    for stream in streams:
        stream.cancel()
    view = view_of(alice, table_id)
    alice.Act(
        table_pb2.ActRequest(
            table_id=table_id,
            hand_number=view.hand_number,
            action=table_pb2.ACTION_CALL,
            idempotency_key="call-1",
        ),
        timeout=30,
    )
    # The server forgets the dropped streams: a new watcher still works, from a fresh view,
    # and nothing the dropped ones left keeps the table from playing on.
    fresh = stub.WatchTable(table_pb2.WatchTableRequest(table_id=table_id))
    try:
        assert next(fresh).view.version == view_of(alice, table_id).version
    finally:
        fresh.cancel()


def test_an_act_whose_caller_went_away_is_applied_once(platform: Platform) -> None:
    """Cancel Acts at once after sending them (the server may or may not have started the
    command): each retry with the same key is answered with one version, and the table moves
    by exactly one decision per key."""
    table_id, alice, bob = heads_up(platform)
    players = {0: alice, 1: bob}
    for number in range(4):
        view = wait_for_turn(alice, table_id)
        if not view.hand_in_progress:
            break
        stub = players[view.to_act]
        key = f"cancelled-{number}"
        request = call_or_check(table_id, view, key)
        future = stub.Act.future(request)
        future.cancel()
        first = stub.Act(request, timeout=30)
        again = stub.Act(request, timeout=30)
        assert again.version == first.version
        after = view_of(alice, table_id)
        assert (after.hand_number, after.action_number) != (view.hand_number, view.action_number)


def test_a_play_stream_cancelled_mid_act_leaves_the_act_applied_at_most_once(
    platform: Platform,
) -> None:
    table_id, alice, _ = heads_up(platform)
    view = view_of(alice, table_id)
    requests = [
        table_pb2.PlayRequest(
            act=table_pb2.ActRequest(
                table_id=table_id,
                hand_number=view.hand_number,
                action=table_pb2.ACTION_CALL,
                idempotency_key="streamed-call",
            )
        )
    ]
    call = alice.Play(iter(requests))
    call.cancel()
    retried = PlayStream(alice)
    answer = retried.act(
        table_id, table_pb2.ACTION_CALL, key="streamed-call", hand=view.hand_number
    )
    assert answer.WhichOneof("result") == "act"
    again = retried.act(table_id, table_pb2.ACTION_CALL, key="streamed-call", hand=view.hand_number)
    assert again.act.version == answer.act.version
    retried.close()


def test_two_instances_serve_one_table_and_watch_each_other_s_writes(platform: Platform) -> None:
    assert platform.start_instance is not None
    other = platform.start_instance()
    table_id, alice, _ = heads_up(platform)
    bob_there = platform.table("bob", auth.Role.PLAYER, port=other)
    watcher = platform.table("rail", auth.Role.PLAYER, port=other).WatchTable(
        table_pb2.WatchTableRequest(table_id=table_id, batch=True)
    )
    try:
        assert next(watcher).HasField("view")
        view = view_of(alice, table_id)
        called = alice.Act(  # on the first instance
            table_pb2.ActRequest(
                table_id=table_id,
                hand_number=view.hand_number,
                action=table_pb2.ACTION_CALL,
                idempotency_key="alice-call",
            ),
            timeout=30,
        )
        # Bob checks through the other instance, which must see alice's call first.
        checked = bob_there.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                hand_number=view.hand_number,
                action=table_pb2.ACTION_CHECK,
                idempotency_key="bob-check",
            ),
            timeout=30,
        )
        assert checked.version > called.version
        seen: set[int] = set()
        deadline = time.monotonic() + 30
        while checked.version not in seen and time.monotonic() < deadline:
            seen |= {event.version for event in events_in(next(watcher))}
        assert {called.version, checked.version} <= seen
    finally:
        watcher.cancel()


# Past gRPC core's default of 1,000 calls waiting for the server's loop (aio_server.py).
BURST = 1500


def test_a_burst_of_streams_opened_at_once_all_open(platform: Platform) -> None:
    """Every watcher reconnecting at once (after a restart): none is cancelled while the
    server's event loop starts the calls one by one."""
    table_id, _, _ = heads_up(platform)
    token = auth.issue_token(KEY, "rail", auth.Role.PLAYER, 600)

    async def burst() -> dict[str, int]:
        outcome = {"open": 0, "refused": 0}
        done = asyncio.Event()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{platform.port}") as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)

            async def watch() -> None:
                stream = stub.WatchTable(
                    table_pb2.WatchTableRequest(table_id=table_id, batch=True),
                    metadata=auth.bearer_metadata(token),
                )
                try:
                    async for _message in stream:
                        outcome["open"] += 1
                        await done.wait()
                        return
                except grpc.RpcError:
                    outcome["refused"] += 1

            watchers = [asyncio.create_task(watch()) for _ in range(BURST)]
            deadline = time.monotonic() + 120
            while sum(outcome.values()) < BURST and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            done.set()
            await asyncio.gather(*watchers, return_exceptions=True)
        return outcome

    assert asyncio.run(burst()) == {"open": BURST, "refused": 0}


def test_one_move_sent_many_times_at_once_is_recorded_once_and_every_copy_answers_it(
    platform: Platform, redis_url: str
) -> None:
    """Copies of one Act (one idempotency key) arriving together queue on the table's writer:
    the first is appended, every other finds its key, and all answer the same version."""
    table_id, alice, _ = heads_up(platform)
    view = view_of(alice, table_id)
    request = table_pb2.ActRequest(
        table_id=table_id,
        hand_number=view.hand_number,
        action=table_pb2.ACTION_CALL,
        idempotency_key="many-copies",
    )
    futures = [alice.Act.future(request, timeout=30) for _ in range(COPIES)]
    versions = {future.result().version for future in futures}
    assert len(versions) == 1
    accepted = [
        e
        for e in stored_events(redis_url, table_id)
        if isinstance(e, events_pb2.CommandAccepted) and e.key.endswith("/many-copies")
    ]
    assert len(accepted) == 1


def test_the_move_after_a_move_that_ends_a_street_is_decided_on_the_next_street(
    platform: Platform,
) -> None:
    """A move is answered once recorded and the street it ends is dealt after the answer,
    but before the table's next command: a move sent the moment the answer arrives (no view
    read in between) is decided on the new street."""
    table_id, alice, bob = heads_up(platform)
    hand = view_of(alice, table_id).hand_number
    act(alice, table_id, hand, table_pb2.ACTION_CALL, key="alice-call")
    ended = act(bob, table_id, hand, table_pb2.ACTION_CHECK, key="bob-check")  # the preflop
    first_on_flop = act(bob, table_id, hand, table_pb2.ACTION_CHECK, key="bob-flop-check")
    assert first_on_flop.version > ended.version + 1  # the flop's events lie between
    after = view_of(alice, table_id)
    assert len(after.board) == 3
    assert after.to_act == 0


def test_a_stop_right_after_a_street_s_last_move_still_deals_the_next_street(
    platform: Platform, redis_url: str
) -> None:
    # The check that closes preflop is answered once recorded; the flop is dealt by the
    # table's writer after the answer. A stop at that moment waits for the writer (no other
    # instance or recovery sweep is left to deal it).
    table_id, alice, bob = heads_up(platform)
    hand = view_of(alice, table_id).hand_number
    act(alice, table_id, hand, table_pb2.ACTION_CALL, key="alice-call")
    checked = act(bob, table_id, hand, table_pb2.ACTION_CHECK, key="bob-check")
    assert platform.stop_tables is not None
    platform.stop_tables()
    after = stored_events(redis_url, table_id)[checked.version :]
    assert any(isinstance(event, CardsDealt) for event in after), after


def test_a_view_is_read_on_the_loop_and_sees_the_move_before_it(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GetTableView of a table this process has loaded takes no pool thread: the synchronous
    loader (what the pool would run) refuses here, and every view still answers, each after
    the move before it and that move's steps."""
    table_id, alice, bob = heads_up(platform)

    def on_the_pool(*_args: object) -> None:
        raise AssertionError("GetTableView ran the synchronous loader on the command pool")

    monkeypatch.setattr(TableApplication, "load", on_the_pool)
    players = {0: alice, 1: bob}
    for number in range(4):
        view = view_of(alice, table_id)
        if not view.hand_in_progress:
            break
        stub = players[view.to_act]
        acted = stub.Act(call_or_check(table_id, view, f"on-the-loop-{number}"), timeout=30)
        after = view_of(bob, table_id)
        assert after.version >= acted.version
        assert (after.hand_number, after.action_number) != (view.hand_number, view.action_number)
