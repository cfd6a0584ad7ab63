"""The table application's command and process path in one process (no gRPC, no Redis).

Six-handed no-limit hold'em with the table benchmark's weighted random players (bench_table's
FACING / UNOPENED mix; bets at the minimum), driven straight through `TableApplication.act`
on the in-memory event store, with the real dealer application (in memory) behind the
table's dealer port and a ledger that only records its calls. Rows: CPU per act and per hand
of this process (the table application plus the in-memory dealer and store), table appends
per hand and dealer calls per hand (in all and by RPC): the round trips each hand costs the
real services.
"""

from __future__ import annotations

import random
import time
from collections import Counter

from services.games.contract import Move
from services.games.poker.catalog import TEXAS_HOLDEM
from services.games.poker.definitions import TableConfig
from services.games.poker.legal import legal_actions
from services.games.poker.state import TableState
from services.ranking.ports import LibraryRanker
from services.shared.eventstore import AppendResult, InMemoryEventStore
from services.table import codec
from services.table.application import TableApplication, TableSpec
from services.table.ports import NoScheduler
from tests.fixtures.table_ports import InProcessDealer, NullLedger, poker_move

FACING = {"fold": 45, "call": 45, "raise": 10}
UNOPENED = {"check": 75, "bet": 25}


def weighted_act(engine: TableState, rng: random.Random) -> tuple[str, Move]:
    """The player to act and their Act: a random legal action weighted FACING / UNOPENED,
    bets and raises at the minimum (also bench_watching's players)."""
    hand = engine.hand
    assert hand is not None and hand.to_act is not None
    seat = engine.seats[hand.to_act]
    assert seat is not None
    legal = legal_actions(engine, hand.to_act)
    mix = FACING if "call" in legal.actions else UNOPENED
    kinds = [k for k in mix if k in legal.actions] or sorted(legal.actions)
    kind = rng.choices(kinds, weights=[mix.get(k, 1) for k in kinds])[0]
    amount = legal.min_to if kind in ("bet", "raise") else None
    return seat.player, poker_move(hand.to_act, kind, amount, hand=hand.number)


class CountingStore(InMemoryEventStore):
    """The in-memory store, counting the appends that wrote something."""

    appends = 0

    def append(self, *args: object, **kwargs: object) -> AppendResult:
        result = super().append(*args, **kwargs)  # type: ignore[arg-type]
        self.appends += 0 if result.deduplicated else 1
        return result


def _measure(acts: int) -> dict[str, object]:
    store, dealer = CountingStore(codec.registry()), InProcessDealer()
    app = TableApplication(store, dealer, NullLedger(), LibraryRanker(), NoScheduler())
    config = TableConfig(game=TEXAS_HOLDEM, seats=6)
    spec = TableSpec(config, table_id="bench", min_players_to_start=6)
    table_id = app.create_table(spec, "house", "create").table_id
    for seat in range(6):
        app.join(table_id, f"p{seat}", seat, 10**9, "", f"join-{seat}")
    rng = random.Random(1)

    def play(count: int, tag: str) -> None:
        for n in range(count):
            player, act = weighted_act(app.current(table_id).state.engine, rng)
            app.act(table_id, player, act, f"{tag}-{n}", None)

    play(300, "warm-up")
    hands0, appends0, calls0 = (
        app.current(table_id).state.engine.last_hand,
        store.appends,
        len(dealer.calls),
    )
    cpu0 = time.process_time()
    play(acts, "measured")
    cpu = time.process_time() - cpu0
    hands = app.current(table_id).state.engine.last_hand - hands0
    return {
        "acts": acts,
        "hands": hands,
        "acts_per_hand": acts / hands,
        "cpu_ms_per_act": cpu * 1000 / acts,
        "cpu_ms_per_hand": cpu * 1000 / hands,
        "table_appends_per_hand": (store.appends - appends0) / hands,
        "dealer_calls_per_hand": (len(dealer.calls) - calls0) / hands,
        # Each RPC's share (an AdvanceShuffles batch is one call: a hand's boundary).
        "dealer_calls_per_hand_by_rpc": {
            rpc: round(count / hands, 2)
            for rpc, count in sorted(Counter(dealer.calls[calls0:]).items())
        },
    }


def run(quick: bool) -> list[dict[str, object]]:
    return [_measure(1000 if quick else 5000)]


if __name__ == "__main__":
    for row in run(quick=False):
        print(row)
