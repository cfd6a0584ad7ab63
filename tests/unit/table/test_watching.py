"""The stream message of an event is made once per distinct view and is what redaction says."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

from croupier.table.v1 import events_pb2, table_pb2
from services.games.poker import events as ev
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.shared.auth import Principal, Role
from services.table import codec, translate
from services.table.fanout import HubEvent
from services.table.games import poker
from services.table.shell import ShellState, Table
from services.table.watch_wire import serialize_response
from services.table.watching import TableWatcher, _batch_for, _view_for, redact_any


def entry_of(version: int, event: object) -> HubEvent:
    return HubEvent(version, 1000 + version, event, codec.to_message(event))


def _response_for(
    table_id: str, entry: HubEvent, seat: int | None
) -> table_pb2.WatchTableResponse | None:
    """The one-event-a-message response of `entry` for a viewer at `seat`."""
    view = _view_for(table_id, entry, seat, poker.ADAPTER)
    return None if view is None else view.response()


def expected(entry: HubEvent, seat: int | None) -> events_pb2.TableEvent | None:
    visible = redact_any(entry.event, seat, poker.ADAPTER)
    if visible is None:
        return None
    return translate.event_to_proto(
        "t1", entry.version, entry.recorded_at_ms, visible, poker.ADAPTER
    )


def test_an_event_nobody_redacts_is_one_message_shared_by_every_viewer() -> None:
    entry = entry_of(7, ev.ActionTaken(seat=1, action="call", to=4, added=2))
    responses = [_response_for("t1", entry, seat) for seat in (None, 0, 1, 5)]
    assert all(r is responses[0] for r in responses)
    assert responses[0] is not None and responses[0].event == expected(entry, None)


def test_hole_cards_are_shown_to_their_seat_only_and_each_view_is_cached() -> None:
    entry = entry_of(9, ev.CardsDealt(seat=0, cards=("As", "Kd")))
    own = _response_for("t1", entry, 0)
    other = _response_for("t1", entry, 1)
    spectator = _response_for("t1", entry, None)
    assert own is not None and other is not None and spectator is not None
    assert list(own.event.cards_dealt.cards) == ["As", "Kd"]
    assert "As" not in other.event.cards_dealt.cards
    assert other.event == expected(entry, 1) and spectator.event == expected(entry, None)
    assert _response_for("t1", entry, 1) is other  # the second watcher of seat 1 reuses it
    # Every viewer but the owner sees the same hidden cards: one message for all of them.
    assert _response_for("t1", entry, 2) is other and spectator is other


def test_the_services_own_events_look_the_same_to_every_viewer_and_are_redacted_once() -> None:
    reveal = '{"shuffle_id": "s", "revealed_seed_hex": "ab", "history": ["As"]}'
    events = [
        events_pb2.ShuffleRevealed(hand=1, shuffle_id="s", reveal_json=reveal),
        events_pb2.ActionRequested(hand=1, seat=2, action_number=3, legal_actions=["fold"]),
        events_pb2.CommandAccepted(key="k", by="alice", events=2),
    ]
    for version, event in enumerate(events, start=3):
        entry = entry_of(version, event)
        seen = [redact_any(event, seat, poker.ADAPTER) for seat in (None, 0, 1, 2)]
        assert all(s == seen[0] for s in seen), event  # (what sharing one view relies on)
        responses = [_response_for("t1", entry, seat) for seat in (None, 0, 1, 2)]
        assert all(r is responses[0] for r in responses)
        if responses[0] is not None:
            assert responses[0].event == expected(entry, 2)
    assert "history" not in str(_response_for("t1", entry_of(3, events[0]), 1))


def test_a_reveal_reaches_watchers_without_its_seed_unless_the_table_makes_it_public() -> None:
    reveal = json.dumps(
        {"shuffle_id": "s", "revealed_seed_hex": "ab" * 32, "positions_root_hex": "cd" * 32}
    )
    event = events_pb2.ShuffleRevealed(hand=1, shuffle_id="s", reveal_json=reveal)
    for policy in (events_pb2.SEED_REVEAL_AUDITORS, events_pb2.SEED_REVEAL_HAND_PLAYERS):
        shown = redact_any(event, None, poker.ADAPTER, policy)
        assert isinstance(shown, events_pb2.ShuffleRevealed)
        assert "ab" * 32 not in shown.reveal_json and "cd" * 32 in shown.reveal_json
    public = redact_any(event, None, poker.ADAPTER, events_pb2.SEED_REVEAL_EVERYONE)
    assert isinstance(public, events_pb2.ShuffleRevealed) and "ab" * 32 in public.reveal_json
    # A shuffle closed before it dealt a card hides nobody's cards: its seed is public.
    unused = events_pb2.ShuffleRevealed(hand=1, shuffle_id="s", reveal_json=reveal, unused=True)
    shown = redact_any(unused, None, poker.ADAPTER)
    assert isinstance(shown, events_pb2.ShuffleRevealed) and "ab" * 32 in shown.reveal_json


def test_command_bookkeeping_is_not_streamed_to_anyone() -> None:
    entry = entry_of(3, events_pb2.CommandAccepted(key="k", by="alice", events=2))
    assert _response_for("t1", entry, 0) is None
    assert _response_for("t1", entry, None) is None


def test_a_batch_is_one_message_of_the_viewers_events_shared_by_watchers_of_that_seat() -> None:
    entries = [
        entry_of(7, ev.ActionTaken(seat=1, action="call", to=4, added=2)),
        entry_of(8, events_pb2.CommandAccepted(key="k", by="bob", events=1)),
        entry_of(9, ev.CardsDealt(seat=0, cards=("As", "Kd"))),
    ]
    for seat in (0, None):
        views = [
            v for v in (_view_for("t1", e, seat, poker.ADAPTER) for e in entries) if v is not None
        ]
        batch = _batch_for(entries, seat, views, shared=True)
        events = table_pb2.WatchTableResponse.FromString(batch).events.events
        assert list(events) == [expected(e, seat) for e in (entries[0], entries[2])]
        assert _batch_for(entries, seat, views, shared=True) is batch  # the next spectator
    spectators = _batch_for(entries, None, views, shared=True)
    # A watcher whose seat changed inside the batch gets its own message, never a shared one.
    assert _batch_for(entries, None, views, shared=False) is not spectators


class _OneBatch:
    """A fan-out that hands every watcher the same one batch (as a hub does to caught-up
    watchers of a table)."""

    def __init__(self, entries: list[HubEvent]) -> None:
        self.entries = entries

    def listen(
        self, stream: str, from_version: int, stop: threading.Event
    ) -> Iterator[list[HubEvent]]:
        yield self.entries


def test_a_watcher_seated_inside_a_batch_never_shares_its_hole_cards_with_spectators() -> None:
    entries = [
        entry_of(5, ev.PlayerSeated(seat=1, player="pat", stack=100)),
        entry_of(6, ev.CardsDealt(seat=1, cards=("As", "Kd"))),
    ]
    watcher = object.__new__(TableWatcher)
    watcher.fanout = _OneBatch(entries)  # type: ignore[assignment]
    state = poker.ADAPTER.rules.initial_state(TableConfig(game=TEXAS_HOLDEM, seats=2))
    table = Table("t1", 4, poker.ADAPTER, state, ShellState())

    def watch(subject: str) -> list[events_pb2.TableEvent]:
        principal = Principal(subject, Role.PLAYER)
        stream = watcher._follow(table, principal, "s", threading.Event(), batch=True)
        responses = [table_pb2.WatchTableResponse.FromString(serialize_response(r)) for r in stream]
        return [event for response in responses for event in response.events.events]

    # pat sits down inside the batch, so it shows pat's own cards; the spectator who takes the
    # same batch next must get the spectators' one, not pat's.
    assert watch("pat") == [expected(entries[0], None), expected(entries[1], 1)]
    assert watch("sam") == [expected(entries[0], None), expected(entries[1], None)]
