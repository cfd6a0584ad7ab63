"""Over many hands, no client ever receives an unrevealed card of another seat.

Every message each client gets is captured: its WatchTable streams (one event per message and
batched), its table views, the errors it provokes (as Act calls and as answers on its Play
stream) and its hand histories. The stored stream
(read directly, as only the service may) says which cards were secret from whom at every
version.
"""

from __future__ import annotations

import contextlib
import random
import re
import threading

import grpc
import redis
from google.protobuf.message import Message

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.games.poker import events as ev
from services.shared.eventstore import RedisEventStore
from services.table import codec
from services.table.application import table_stream
from tests.integration.table.conftest import (
    Platform,
    PlayStream,
    WatchStream,
    act,
    create_table,
    events_in,
    seat,
    view_of,
)

CARDS = re.compile(r"^(?:[2-9TJQKA][cdhs])+$")
PLAYERS = ["p0", "p1", "p2", "p3"]
HANDS = 12


def cards_in(message: Message) -> set[str]:
    """Every card string anywhere in a message (also inside PHH lines like 'd dh p1 AsKd')."""
    found: set[str] = set()
    for _, value in message.ListFields():
        values = value if isinstance(value, (list, tuple)) or hasattr(value, "extend") else [value]
        for item in values:
            if isinstance(item, Message):
                found |= cards_in(item)
            elif isinstance(item, str):
                for token in re.split(r"[\s,\[\]\"']+", item):
                    if CARDS.match(token):
                        found |= {token[i : i + 2] for i in range(0, len(token), 2)}
    return found


class Secrets:
    """Which cards each seat may not see, version by version, from the stored stream."""

    def __init__(self, redis_url: str, table_id: str) -> None:
        client = redis.Redis.from_url(redis_url)
        records = RedisEventStore(client, codec.registry()).read(table_stream(table_id))
        client.close()
        self.hand_at: dict[int, int] = {}
        self.dealt: dict[int, list[tuple[int, int | None, tuple[str, ...]]]] = {}
        self.shown: dict[int, dict[int, int]] = {}
        hand = 0
        for record in records:
            event = codec.from_message(record.message)
            if isinstance(event, ev.HandStarted):
                hand = event.hand
            self.hand_at[record.version] = hand
            if isinstance(event, ev.CardsDealt):
                hidden = () if event.face_up else event.cards
                self.dealt.setdefault(hand, []).append((record.version, event.seat, hidden))
                if event.burned:
                    self.dealt[hand].append((record.version, -1, event.burned))
            if isinstance(event, ev.CardsShown):
                self.shown.setdefault(hand, {})[event.seat] = record.version

    def hidden_from(self, seat: int | None, hand: int, version: int) -> set[str]:
        secret: set[str] = set()
        shown = self.shown.get(hand, {})
        for _, owner, cards in self.dealt.get(hand, []):
            if owner is None or owner == seat:
                continue
            if owner in shown and shown[owner] <= version:
                continue
            secret |= set(cards)
        return secret


def test_no_client_ever_sees_an_unrevealed_card_of_another_seat(
    platform: Platform, redis_url: str
) -> None:
    rng = random.Random(7)
    table_id = create_table(platform, seats=4, min_buy_in=20, max_buy_in=400)
    stubs = {i: seat(platform, table_id, name, i, 400) for i, name in enumerate(PLAYERS)}
    spectator = platform.table("watcher")
    received: dict[int | None, list[tuple[str, int, Message]]] = {i: [] for i in stubs}
    received[None] = []
    viewers: dict[int | None, table_pb2_grpc.TableServiceStub] = {i: s for i, s in stubs.items()}
    viewers[None] = spectator
    # Each viewer watches twice: one event per message, and batched.
    streams = {
        (viewer, batch): stub.WatchTable(
            table_pb2.WatchTableRequest(table_id=table_id, batch=batch)
        )
        for viewer, stub in viewers.items()
        for batch in (False, True)
    }
    streamed: dict[tuple[int | None, bool], list[Message]] = {key: [] for key in streams}

    def collect(key: tuple[int | None, bool], stream: WatchStream) -> None:
        try:
            for message in stream:
                received[key[0]].append(("stream", 0, message))
                streamed[key].extend(events_in(message))
        except grpc.RpcError:
            pass

    threads = [threading.Thread(target=collect, args=item, daemon=True) for item in streams.items()]
    for t in threads:
        t.start()

    plays = {i: PlayStream(stub) for i, stub in stubs.items()}
    viewer: int | None  # a seat's stub, then also the spectator's (None)
    for turn in range(2000):
        view = view_of(spectator, table_id)
        if view.hand_number > HANDS:
            break
        assert view.to_act >= 0, view
        for viewer, stub in stubs.items():
            own = view_of(stub, table_id)
            received[viewer].append(("view", own.hand_number, own))
        own = view_of(stubs[view.to_act], table_id)
        legal = {a.action: a for a in own.legal_actions}
        other = (view.to_act + 1) % len(stubs)
        if turn % 2:  # out of turn, as a call and (every other turn) on the Play stream
            answer = plays[other].act(table_id, table_pb2.ACTION_CHECK, hand=own.hand_number)
            assert answer.WhichOneof("result") == "error", answer
            received[other].append(("play", own.hand_number, answer))
        try:
            act(stubs[other], table_id, own.hand_number, table_pb2.ACTION_CHECK)
        except grpc.RpcError as error:
            received[other].append(
                ("error", own.hand_number, table_pb2.TableView(phase=error.details() or ""))
            )
        choice = rng.choice(sorted(set(legal) - {table_pb2.ACTION_ALL_IN}))
        amount = 0
        if choice in (table_pb2.ACTION_BET, table_pb2.ACTION_RAISE):
            amount = legal[choice].min_amount
        if choice == table_pb2.ACTION_FOLD and rng.random() < 0.5:
            choice = table_pb2.ACTION_CALL if table_pb2.ACTION_CALL in legal else choice
        with contextlib.suppress(grpc.RpcError):  # a refused choice: choose again
            act(stubs[view.to_act], table_id, own.hand_number, choice, amount)
    for viewer, stub in stubs.items():
        for hand in range(1, HANDS + 1):
            history = stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand)
            )
            received[viewer].append(("history", hand, history))
    for play in plays.values():
        play.close()
    for stream in streams.values():
        stream.cancel()
    for t in threads:
        t.join(timeout=5)

    secrets = Secrets(redis_url, table_id)
    checked = 0
    for viewer, messages in received.items():
        for kind, hand, message in messages:
            if kind == "stream":
                # what collect() appended: the WatchTable stream's own messages
                assert isinstance(message, table_pb2.WatchTableResponse)
                if not message.HasField("view"):
                    for event in events_in(message):  # each event of a batch at its own version
                        hidden = secrets.hidden_from(
                            viewer, secrets.hand_at[event.version], event.version
                        )
                        leaked = cards_in(event) & hidden
                        assert not leaked, f"event to seat {viewer} leaks {leaked}: {event}"
                        checked += 1
                    continue
                version = message.view.version
                hand = message.view.hand_number
            elif kind == "history":
                version = 10**9  # after the hand: shown cards are public, mucked stay secret
            else:
                version = getattr(message, "version", 0) or 10**9
            leaked = cards_in(message) & secrets.hidden_from(viewer, hand, version)
            assert not leaked, f"{kind} to seat {viewer} in hand {hand} leaks {leaked}: {message}"
            checked += 1
    assert checked > 500
    assert sum(1 for m in received.values() for kind, _, _ in m if kind == "play") > 20
    assert sum(1 for m in received[None] if m[0] == "stream") > 100
    # Batched, each viewer got the same events as one per message (the streams were
    # cancelled at slightly different points: compare what both received).
    for viewer in viewers:
        plain, batched = streamed[(viewer, False)], streamed[(viewer, True)]
        common = min(len(plain), len(batched))
        assert common > 100 and batched[:common] == plain[:common], viewer
