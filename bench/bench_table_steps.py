"""The table application's command and process path in one process (no gRPC, no Redis).

Six-handed no-limit hold'em with the table benchmark's weighted random players (bench_table's
FACING / UNOPENED mix; bets at the minimum), driven straight through `TableApplication.act`
on the in-memory event store, with the real dealer application (in memory) behind the
table's dealer port and a ledger that only records its calls. Rows: CPU per act and per hand
of this process (the table application plus the in-memory dealer and store), table appends
per hand and dealer calls per hand: the round trips each hand costs the real services.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from croupier.dealer.v1 import dealer_pb2
from services.dealer.application import DealerApplication, register_events
from services.dealer.decks import DeckSpec
from services.dealer.seed_cipher import SeedCipher
from services.evaluator.ranking.ports import LibraryRanker
from services.games import commands as cmd
from services.games.catalog import TEXAS_HOLDEM
from services.games.definitions import TableConfig
from services.games.legal import legal_actions
from services.shared.auth import Principal, Role
from services.shared.eventstore import AppendResult, EventRegistry, InMemoryEventStore
from services.table import codec
from services.table.application import TableApplication, TableSpec
from services.table.ports import Commitment, NoScheduler

SERVICE = Principal("bench-table", Role.SERVICE)
PURPOSES = {
    "hole": dealer_pb2.DEAL_PURPOSE_HOLE,
    "burn": dealer_pb2.DEAL_PURPOSE_BURN,
    "board": dealer_pb2.DEAL_PURPOSE_BOARD,
    "draw": dealer_pb2.DEAL_PURPOSE_DRAW,
    "spit": dealer_pb2.DEAL_PURPOSE_SPIT,
}
FACING = {"fold": 45, "call": 45, "raise": 10}
UNOPENED = {"check": 75, "bet": 25}


class Dealer:
    """The table's dealer port over the in-memory dealer application, counting calls."""

    def __init__(self) -> None:
        store = InMemoryEventStore(register_events(EventRegistry()))
        self.app = DealerApplication(store, SeedCipher(bytes(range(32))))
        self.calls = 0

    def open_shuffle(self, shuffle_id: str) -> Commitment:
        self.calls += 1
        loaded = self.app.create_shuffle(SERVICE, shuffle_id, DeckSpec())
        return Commitment(shuffle_id, loaded.state.commitment.hex())

    def contribute(self, shuffle_id: str, contributor: str, entropy: bytes) -> int:
        self.calls += 1
        return self.app.contribute(SERVICE, shuffle_id, contributor, entropy)

    def deal(
        self, shuffle_id: str, count: int, step: str, purpose: str, burn: int = 0
    ) -> tuple[str, ...]:
        self.calls += 1
        dealt = self.app.deal(
            SERVICE, shuffle_id, count, PURPOSES[purpose], idempotency_key=step[-200:], burn=burn
        )
        return (*dealt.burned, *dealt.cards)

    def reshuffle(self, shuffle_id: str, cards: Sequence[str], step: str) -> None:
        raise AssertionError("hold'em never reshuffles")

    def close(self, shuffle_id: str) -> str:
        self.calls += 1
        self.app.close(SERVICE, shuffle_id)
        return "{}"


class Ledger:
    def ensure_accounts(self, table_id: str, currency: str) -> None:
        return None

    def player_account(self, player: str, currency: str) -> str:
        return f"player:{player}:{currency}"

    def reserve_buy_in(
        self, key: str, table_id: str, account: str, amount: int, currency: str
    ) -> str:
        return key

    def post(self, key: str, reservation_id: str, table_id: str) -> None:
        return None

    def void(self, key: str, reservation_id: str, reason: str) -> None:
        return None

    def pay_out(
        self, key: str, table_id: str, account: str, amount: int, currency: str, reason: str
    ) -> None:
        return None

    def rake(self, key: str, table_id: str, hand: int, amount: int, currency: str) -> None:
        return None


class CountingStore(InMemoryEventStore):
    """The in-memory store, counting the appends that wrote something."""

    appends = 0

    def append(self, *args: object, **kwargs: object) -> AppendResult:
        result = super().append(*args, **kwargs)  # type: ignore[arg-type]
        self.appends += 0 if result.deduplicated else 1
        return result


def _measure(acts: int) -> dict[str, object]:
    store, dealer = CountingStore(codec.registry()), Dealer()
    app = TableApplication(store, dealer, Ledger(), LibraryRanker(), NoScheduler())
    config = TableConfig(game=TEXAS_HOLDEM, seats=6)
    spec = TableSpec(config, table_id="bench", min_players_to_start=6)
    table_id = app.create_table(spec, "house", "create").table_id
    for seat in range(6):
        app.join(table_id, f"p{seat}", seat, 10**9, "", f"join-{seat}")
    rng = random.Random(1)

    def play(count: int, tag: str) -> None:
        for n in range(count):
            engine = app.current(table_id).engine
            hand = engine.hand
            assert hand is not None and hand.to_act is not None
            seat = engine.seats[hand.to_act]
            assert seat is not None
            legal = legal_actions(engine, hand.to_act)
            mix = FACING if "call" in legal.actions else UNOPENED
            kinds = [k for k in mix if k in legal.actions] or sorted(legal.actions)
            kind = rng.choices(kinds, weights=[mix.get(k, 1) for k in kinds])[0]
            amount = legal.min_to if kind in ("bet", "raise") else None
            act = cmd.Act(hand.to_act, kind, amount, hand=hand.number)
            app.act(table_id, seat.player, act, f"{tag}-{n}", None)

    play(300, "warm-up")
    hands0, appends0, calls0 = app.current(table_id).engine.last_hand, store.appends, dealer.calls
    cpu0 = time.process_time()
    play(acts, "measured")
    cpu = time.process_time() - cpu0
    hands = app.current(table_id).engine.last_hand - hands0
    return {
        "acts": acts,
        "hands": hands,
        "acts_per_hand": acts / hands,
        "cpu_ms_per_act": cpu * 1000 / acts,
        "cpu_ms_per_hand": cpu * 1000 / hands,
        "table_appends_per_hand": (store.appends - appends0) / hands,
        "dealer_calls_per_hand": (dealer.calls - calls0) / hands,
    }


def run(quick: bool) -> list[dict[str, object]]:
    return [_measure(1000 if quick else 5000)]


if __name__ == "__main__":
    for row in run(quick=False):
        print(row)
