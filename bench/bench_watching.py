"""The table service's WatchTable path in one process: CPU per event, from the hub to the bytes.

Six-handed no-limit hold'em played by bench_table_steps' weighted random players on the
in-memory store and dealer; every append (events and stored messages, as the application
hands them to the fan-out) is recorded. Then, per pass: each append's events become fresh
`HubEvent`s added to one hub (`_Hub.add`), and batched watchers (`WatchTableRequest.batch`)
follow the appends as the hub hands them out, each response serialized by the response
serializer the table server registers for WatchTable (what gRPC calls per message). Watchers:
the spectator alone (bench_table's rows) or the spectator and the six players (`--watch`).

`run` reports CPU (process time) per event per pass. For instruction counts, record once and
replay the same file under callgrind, with 0 passes for the set-up's own count:

    python -m bench.bench_watching --record /tmp/watch.bin --hands 200
    valgrind --tool=callgrind python -m bench.bench_watching --replay /tmp/watch.bin --passes 3
"""

from __future__ import annotations

import argparse
import pickle
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import Message

from bench.bench_table_steps import weighted_act
from croupier.table.v1 import events_pb2
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.ranking.ports import LibraryRanker
from services.shared.auth import Principal, Role
from services.shared.eventstore import InMemoryEventStore
from services.shared.settings import RuntimeSettings
from services.table import codec, fanout
from services.table.application import TableApplication, TableSpec
from services.table.attention import InMemoryAttentionSet
from services.table.games import poker
from services.table.ports import NoScheduler
from services.table.server import build
from services.table.settings import TableSettings
from services.table.shell import ShellState, Table
from services.table.watching import TableWatcher
from tests.fixtures.table_ports import InProcessDealer, NullLedger

TABLE_ID = "bench"
WATCH_METHOD = "/croupier.table.v1.TableService/WatchTable"

# One append as recorded: first version, recorded_at_ms, (message type name, payload) each.
Append = tuple[int, int, list[tuple[str, bytes]]]


def record(hands: int) -> list[Append]:
    """The appends of `hands` hands (and the table's set-up) at a six-handed table."""
    store = InMemoryEventStore(codec.registry())
    app = TableApplication(store, InProcessDealer(), NullLedger(), LibraryRanker(), NoScheduler())
    appends: list[Append] = []

    def appended(
        table_id: str, first: int, events: Sequence[object], messages: Sequence[Message], at: int
    ) -> None:
        payloads = [(m.DESCRIPTOR.name, m.SerializeToString()) for m in messages]
        appends.append((first, at, payloads))

    app.on_appended = appended
    spec = TableSpec(
        TableConfig(game=TEXAS_HOLDEM, seats=6), table_id=TABLE_ID, min_players_to_start=6
    )
    app.create_table(spec, "house", "create")
    for seat in range(6):
        app.join(TABLE_ID, f"p{seat}", seat, 10**9, "", f"join-{seat}")
    rng = random.Random(1)
    n = 0
    while app.current(TABLE_ID).state.engine.last_hand < hands:
        player, act = weighted_act(app.current(TABLE_ID).state.engine, rng)
        app.act(TABLE_ID, player, act, f"act-{n}", None)
        n += 1
    return appends


def watch_serializer() -> Callable[[Any], bytes]:
    """The response serializer the table server registers for WatchTable."""

    class Registrar:
        def __init__(self) -> None:
            self.handlers: list[grpc.GenericRpcHandler] = []

        def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
            self.handlers.extend(handlers)

        def add_registered_method_handlers(self, service: str, handlers: object) -> None:
            pass

        def wait_for_termination(self, timeout: float | None = None) -> bool:
            return False  # (never served: the table's recovery sweep stops at once)

    runtime = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key="k" * 32)
    settings = TableSettings(
        dealer_target="127.0.0.1:1",
        evaluator_target="127.0.0.1:1",
        ledger_target="127.0.0.1:1",
        redis_url="redis://127.0.0.1:1",
    )
    spec = build(
        settings,
        runtime,
        store=InMemoryEventStore(codec.registry()),
        attention=InMemoryAttentionSet(),
    )
    registrar = Registrar()
    spec.register(registrar)  # type: ignore[arg-type]

    class Details(grpc.HandlerCallDetails):
        method = WATCH_METHOD
        invocation_metadata = ()

    for handler in registrar.handlers:
        found = handler.service(Details())
        if found is not None and found.response_serializer is not None:
            serializer: Callable[[Any], bytes] = found.response_serializer
            return serializer
    raise AssertionError("the table server registers no WatchTable handler")


class _Appends:
    """A fan-out handing each watcher the hub's events one append at a time, as a caught-up
    watcher takes them."""

    def __init__(self, batches: list[list[fanout.HubEvent]]) -> None:
        self.batches = batches

    def listen(
        self, stream: str, from_version: int, stop: threading.Event
    ) -> Iterator[list[fanout.HubEvent]]:
        yield from self.batches


def replay(
    appends: list[Append], passes: int, players_watch: bool, serialize: Callable[[Any], bytes]
) -> int:
    """Run the watch path `passes` times over `appends`; the bytes sent in all."""
    subjects = ["watcher"] + ([f"p{seat}" for seat in range(6)] if players_watch else [])
    # Decoded once: the appending thread hands the hub events and messages (publish).
    decoded = []
    for first, at, payloads in appends:
        messages = [getattr(events_pb2, name).FromString(payload) for name, payload in payloads]
        decoded.append((first, at, [(codec.from_message(m), m) for m in messages]))
    sent = 0
    for _ in range(passes):  # each with fresh hub events (nothing cached), as publish makes
        hub = fanout._Hub("s", appends[0][0] - 1, "")
        batches = []
        for first, at, pairs in decoded:
            hub.add([fanout.HubEvent(first + i, at, e, m) for i, (e, m) in enumerate(pairs)])
            window = hub.window_from(first, fanout.MAX_BATCH)
            assert window is not None
            batches.append(window)
        watcher = object.__new__(TableWatcher)
        watcher.fanout = _Appends(batches)  # type: ignore[assignment]
        state = poker.ADAPTER.rules.initial_state(TableConfig(game=TEXAS_HOLDEM, seats=6))
        table = Table(TABLE_ID, 0, poker.ADAPTER, state, ShellState())
        streams = [
            watcher._follow(table, Principal(s, Role.PLAYER), "s", threading.Event(), batch=True)
            for s in subjects
        ]
        for stream in streams:
            for response in stream:
                sent += len(serialize(response))
    return sent


def _measure(hands: int, players_watch: bool, passes: int) -> dict[str, object]:
    appends = record(hands)
    events = sum(len(payloads) for _, _, payloads in appends)
    serialize = watch_serializer()
    replay(appends, 1, players_watch, serialize)  # warm-up
    cpu0 = time.process_time()
    sent = replay(appends, passes, players_watch, serialize)
    cpu = time.process_time() - cpu0
    return {
        "watchers": 7 if players_watch else 1,
        "hands": hands,
        "events": events,
        "cpu_us_per_event": round(cpu * 1e6 / (events * passes), 2),
        "bytes_per_event": round(sent / (events * passes), 1),
    }


def run(quick: bool) -> list[dict[str, object]]:
    hands, passes = (50, 3) if quick else (200, 5)
    return [_measure(hands, watch, passes) for watch in (False, True)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_watching")
    parser.add_argument("--record", type=Path, help="record the appends of --hands to FILE")
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--replay", type=Path, help="replay the appends recorded in FILE")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--watch", action="store_true", help="the six players watch too")
    args = parser.parse_args(argv)
    if args.record is not None:
        appends = record(args.hands)
        args.record.write_bytes(pickle.dumps(appends))
        print(f"{len(appends)} appends, {sum(len(a[2]) for a in appends)} events")
        return
    if args.replay is not None:
        appends = pickle.loads(args.replay.read_bytes())
        print(replay(appends, args.passes, args.watch, watch_serializer()), "bytes sent")
        return
    for row in run(quick=False):
        print(row)


if __name__ == "__main__":
    main()
