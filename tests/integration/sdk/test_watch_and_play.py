"""A watch that outlives the table server: restarted under it, the SDK's watch resumes from the
last version it yielded, and what it yields is exactly the table's stream, with no gap and no
duplicate; moves on a Play stream go on across the same restart, each applied once."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from croupier.table.v1 import events_pb2, table_pb2
from services.sdk import (
    ClientSettings,
    Croupier,
    FailedPrecondition,
    PlayStream,
    poker_move,
    poker_options,
)
from services.sdk.poker import ACTIONS
from services.shared import auth
from services.table.ports import NoScheduler
from tests.integration.table.conftest import KEY
from tests.integration.workers.table_stack import StackPlatform, table_stack

pytestmark = pytest.mark.integration


def _client(platform: StackPlatform, subject: str, role: auth.Role = auth.Role.PLAYER) -> Croupier:
    return Croupier(
        ClientSettings(
            table=f"127.0.0.1:{platform.port}",
            ledger=f"127.0.0.1:{platform.ledger_port}",
            token=auth.issue_token(KEY, subject, role, 600),
        )
    )


def _untimed(events: list[events_pb2.TableEvent]) -> list[events_pb2.TableEvent]:
    copies = []
    for event in events:
        copy = events_pb2.TableEvent()
        copy.CopyFrom(event)
        copy.ClearField("recorded_at_ms")
        copies.append(copy)
    return copies


def _passive(view: table_pb2.TableView) -> str:
    legal = {a.action for a in view.poker.legal_actions}
    for name in ("check", "call", "show"):
        if ACTIONS[name] in legal:
            return name
    return "fold"


def _play_until(
    players: dict[int, Croupier], table_id: str, hand: int, streams: dict[int, PlayStream]
) -> None:
    """Both players check/call through the Play stream until hand `hand` has started."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        view = players[0].tables.view(table_id)
        if view.hand_number >= hand:
            return
        if not view.hand_in_progress or view.to_act < 0:
            time.sleep(0.02)
            continue
        seat = view.to_act
        mine = players[seat].tables.view(table_id)
        if mine.to_act != seat or not mine.poker.legal_actions:
            continue
        stream = streams[seat]
        key = f"{table_id}/{mine.hand_number}/{mine.action_number}"
        try:
            stream.act(table_id, poker_move(_passive(mine)), hand_number=mine.hand_number, key=key)
        except FailedPrecondition:
            continue  # the view moved on between our two looks
    raise AssertionError(f"hand {hand} never started")


def test_a_watch_resumes_across_a_table_server_restart_without_gap_or_duplicate(
    redis_url: str,
) -> None:
    with table_stack(redis_url, f"sdk-watch-{uuid.uuid4().hex[:6]}", NoScheduler()) as platform:
        house = _client(platform, "house", auth.Role.ADMIN)
        table_id = house.tables.create_table(poker_options(seats=2, action_time_ms=0)).table_id
        players: dict[int, Croupier] = {}
        for seat in (0, 1):
            name = f"p{seat}-{uuid.uuid4().hex[:6]}"
            platform.fund(name, 1000)
            players[seat] = _client(platform, name)
            players[seat].tables.join(table_id, buy_in=200, seat=seat)
        spectator = _client(platform, "spectator")
        watch = spectator.tables.watch(table_id)
        seen: list[table_pb2.TableView | events_pb2.TableEvent] = []
        errors: list[BaseException] = []

        def follow() -> None:
            try:
                seen.extend(watch)
            except BaseException as exc:
                errors.append(exc)

        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        streams = {seat: client.tables.play() for seat, client in players.items()}
        try:
            _play_until(players, table_id, 2, streams)
            platform.restart_table()  # every stream drops: the watch's and both Play streams
            _play_until(players, table_id, 4, streams)
            last = players[0].tables.view(table_id).version
            end = time.monotonic() + 30
            while watch.version < last and time.monotonic() < end and not errors:
                time.sleep(0.02)
            # Events of the last command may still be on their way: wait for the follower to
            # catch up with the version the view named, then stop it.
            assert watch.version >= last, (watch.version, last)
        finally:
            watch.close()
            follower.join(10)
            for stream in streams.values():
                stream.close()
        assert errors == []
        assert watch.reconnects >= 1
        assert isinstance(seen[0], table_pb2.TableView)
        events = [item for item in seen[1:] if isinstance(item, events_pb2.TableEvent)]
        assert len(events) == len(seen) - 1
        versions = [e.version for e in events]
        assert versions == sorted(set(versions))  # increasing: nothing twice
        # The same events a fresh watch from the first view's version yields, in full.
        replay = spectator.tables.watch(table_id, from_version=seen[0].version)
        expected: list[events_pb2.TableEvent] = []
        for item in replay:
            assert isinstance(item, events_pb2.TableEvent)
            expected.append(item)
            if item.version >= versions[-1]:
                break
        replay.close()
        assert [e.version for e in expected] == versions  # no gap
        # The same events; the time stamp aside: a live event carries the appending instance's
        # clock, a replayed one the stored time (they differ by a millisecond or two).
        assert _untimed(expected) == _untimed(events)
        assert sum(e.WhichOneof("event") == "hand_started" for e in events) >= 3
        for client in (*players.values(), house, spectator):
            client.close()
