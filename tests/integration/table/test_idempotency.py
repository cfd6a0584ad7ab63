"""Retries never act twice; two service instances on one table never double-apply anything."""

from __future__ import annotations

import threading
from collections import Counter

import redis

from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.games.poker import events as ev
from services.shared.eventstore import RedisEventStore
from services.table import codec
from services.table.application import table_stream
from tests.integration.table.conftest import (
    Platform,
    act,
    create_table,
    passive_action,
    seat,
    view_of,
)


def stored_events(redis_url: str, table_id: str) -> list[object]:
    client = redis.Redis.from_url(redis_url)
    try:
        store = RedisEventStore(client, codec.registry())
        return [codec.from_message(r.message) for r in store.read(table_stream(table_id))]
    finally:
        client.close()


def test_a_retried_act_returns_the_first_result_and_acts_once(
    platform: Platform, redis_url: str
) -> None:
    table_id = create_table(platform, seats=2)
    alice = seat(platform, table_id, "alice", 0, 200)
    seat(platform, table_id, "bob", 1, 200)
    first = act(alice, table_id, 1, table_pb2.ACTION_RAISE, amount=6, key="raise-once")
    again = act(alice, table_id, 1, table_pb2.ACTION_RAISE, amount=6, key="raise-once")
    assert again.version == first.version
    assert view_of(alice, table_id).version == first.version
    raises = [
        e
        for e in stored_events(redis_url, table_id)
        if isinstance(e, ev.ActionTaken) and e.action == "raise"
    ]
    assert len(raises) == 1


def test_two_instances_serving_one_table_never_double_apply_a_command(
    platform: Platform, redis_url: str
) -> None:
    """Every command goes to both instances at once with the same key; hands play on."""
    assert platform.start_instance is not None
    second = platform.start_instance()
    table_id = create_table(platform, seats=3)
    players = ["alice", "bob", "carol"]
    stubs = [
        {
            "one": seat(platform, table_id, name, i, 500),
            "two": platform.table(name, port=second),
        }
        for i, name in enumerate(players)
    ]
    commands = 0
    while commands < 40:
        view = view_of(stubs[0]["one"], table_id)
        if view.to_act < 0:
            continue
        pair = stubs[view.to_act]
        own = view_of(pair["one"], table_id)
        action, amount, cards = passive_action(own)
        key = f"cmd-{commands}"
        failures: list[BaseException] = []

        def send(
            stub: table_pb2_grpc.TableServiceStub,
            request: tuple[table_pb2.Action.ValueType, int, tuple[str, ...], str, int] = (
                action,
                amount,
                cards,
                key,
                own.hand_number,
            ),
            failures: list[BaseException] = failures,
        ) -> None:
            action, amount, cards, key, hand = request
            try:
                act(stub, table_id, hand, action, amount, cards, key=key)
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=send, args=(pair[k],)) for k in ("one", "two")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures, failures
        commands += 1
    events = stored_events(redis_url, table_id)
    accepted = Counter(
        e.key for e in events if isinstance(e, events_pb2.CommandAccepted) and "/act/" in e.key
    )
    assert len(accepted) == commands and set(accepted.values()) == {1}
    started = [e.hand for e in events if isinstance(e, ev.HandStarted)]
    assert len(started) == len(set(started)) >= 2
    # No card was dealt twice within any hand.
    hand_cards: dict[int, list[str]] = {}
    current = 0
    for e in events:
        if isinstance(e, ev.HandStarted):
            current = e.hand
        if isinstance(e, ev.CardsDealt):
            hand_cards.setdefault(current, []).extend([*e.cards, *e.burned])
    for dealt in hand_cards.values():
        assert len(dealt) == len(set(dealt))
    # A fresh instance that knows nothing but the stream shows exactly the same table.
    third = platform.start_instance()
    for name in (*players, "spectator"):
        live = view_of(platform.table(name), table_id)
        replayed = view_of(platform.table(name, port=third), table_id)
        assert replayed == live
