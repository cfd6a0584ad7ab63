"""The bot soak: built-in bots play many hands of every variant through the real services.

Everything is real and talks gRPC over loopback: a private Redis, the ledger, the dealer, the
evaluator (the table ranks every showdown through its Evaluate RPC) and the table service.
Each bot is an SDK client (`services.bots.sdk.BotClient`) with its own `bot` token and a
built-in policy (random / tight / equity): it watches the table and acts only through the
public TableService API, like any client. There is no scheduler, so nothing but the bots'
own Acts moves a hand: every action the stream records was a bot's, and no deadline fires.

What one table's run checks (`SoakTable.run` returns the findings; the test asserts on them):

* every Act was accepted: the SDK reports each refusal (INVALID_ARGUMENT, FAILED_PRECONDITION)
  with the table's words, and one is enough to fail the run;
* every hand terminates: the table keeps ending hands (a stall of `stall_s` with no event
  fails, naming the hand and whose turn it was), no hand is voided, no seat times out, and
  every HandStarted in the stream has its HandEnded;
* no card is dealt twice in a hand: from the stored stream (every card dealt or burned is new
  unless the discards holding it were reshuffled into the stub first), and the cards the
  table recorded are exactly the cards the dealer's own closed shuffle says it dealt, which
  the dealer verifies against its commitment (`Verify`);
* the live state equals a replay of the stream: mid-hand (bots paused, nothing moves) and
  after everyone left, every bot's view and the house's view from the serving instance equal
  the views from a second table-service instance that folds the stream from scratch;
* chips are conserved against the ledger: mid-hand the table's escrow account holds exactly
  the chips on the table (stacks + everything committed to pots); after everyone left the
  escrow is empty and the bots' accounts hold every chip deposited for them.

Busted bots top up (TopUp, from their ledger bankroll) while they sit out of the hand, so a
table never runs out of players. The whole-ledger check (Audit clean, no reservation left
open, every currency sums to zero) runs once all tables are done (`SoakStack.audit`).
"""

from __future__ import annotations

import itertools
import random
import secrets
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

import grpc
import redis

from croupier.common.v1 import chips_pb2
from croupier.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.poker.v1 import events_pb2 as poker_pb2
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.bots.policies import Policy, make_policy
from services.bots.ranker import EvaluatorRanker
from services.bots.sdk import BotClient
from services.bots.simulation.deals import seating
from services.bots.simulation.full_stack import GAMES, STRUCTURES
from services.bots.simulation.presets import preset
from services.bots.view import BotAction, BotView
from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.evaluator.server import build as build_evaluator
from services.evaluator.settings import EvaluatorSettings
from services.games.poker import events as ev
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import RedisEventStore
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table import codec
from services.table.application import table_stream
from services.table.server import build_aio as build_table_aio
from services.table.settings import TableSettings
from tests.fixtures.aio_server_thread import AioServerThread
from tests.fixtures.redis_server import RedisServer
from tests.integration.ledger.conftest import KEY, start_ledger  # the ledger signs with KEY

CURRENCY = "CHIP"
BUY_IN_UNITS = 100  # big blinds (or small bets) per buy-in and top-up
BANKROLL_BUY_INS = 1_000  # deposited per bot up front: top-ups never run out
VARIANTS = ("nlhe", "plhe", "flhe", "hilo", "spit", "six-card")
BOTS = ("equity", "tight", "random")


class _Finishing(Protocol):
    """What the watchdog needs of a WatchTable stream. grpc's stubs type the stream as a
    call iterator only; the object it is at run time is also a grpc.Future, hence done()."""

    def done(self) -> bool: ...

    def cancel(self) -> bool: ...


@dataclass
class SoakStack:
    """The real services, each a gRPC server on a loopback port, over one private Redis."""

    redis_url: str
    table_port: int
    ledger_port: int
    dealer_port: int
    # Starts one more table-service instance (cold cache: it folds every stream it serves
    # from the start) over the same Redis, dealer and ledger; returns its port.
    start_replay_instance: Callable[[], int]
    channels: list[grpc.Channel] = field(default_factory=list)

    def _channel(self, port: int, subject: str, role: auth.Role) -> grpc.Channel:
        channel = connect(f"127.0.0.1:{port}", auth.issue_token(KEY, subject, role, 24 * 3600))
        self.channels.append(channel)
        return channel

    def table(
        self, subject: str, role: auth.Role, port: int | None = None
    ) -> table_pb2_grpc.TableServiceStub:
        return table_pb2_grpc.TableServiceStub(
            self._channel(port or self.table_port, subject, role)
        )

    def ledger(self) -> ledger_pb2_grpc.LedgerServiceStub:
        return ledger_pb2_grpc.LedgerServiceStub(
            self._channel(self.ledger_port, "soak", auth.Role.SERVICE)
        )

    def dealer(self) -> dealer_pb2_grpc.DealerServiceStub:
        return dealer_pb2_grpc.DealerServiceStub(
            self._channel(self.dealer_port, "soak", auth.Role.AUDITOR)
        )

    def balance(self, account: str) -> int:
        reply = self.ledger().GetBalance(ledger_pb2.GetBalanceRequest(account_id=account))
        return int(reply.balance.balance)

    def audit(self) -> list[str]:
        """The whole ledger: journal replays to the balances, holds all resolved, zero-sum."""
        report = self.ledger().Audit(ledger_pb2.AuditRequest(), timeout=300)
        problems = [f"ledger audit: {d}" for d in report.differences]
        if not report.clean:
            problems.append("ledger audit is not clean")
        if report.open_reservations:
            problems.append(f"{report.open_reservations} ledger reservations left open (holds)")
        problems += [f"{t.currency} sums to {t.total}, not 0" for t in report.totals if t.total]
        return problems


@contextmanager
def soak_stack() -> Iterator[SoakStack]:
    """Start Redis, ledger, dealer, evaluator and table; yield their ports; stop them all."""
    with RedisServer.private_server() as redis_server:
        url = redis_server.url
        namespace = f"soak-{uuid.uuid4().hex[:6]}"
        ledger_server, ledger = start_ledger(url, namespace)
        dealer_runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
        dealer_server, dealer_port = create_server(
            build_dealer(
                DealerSettings(
                    runtime=dealer_runtime, redis_url=url, dealer_key=secrets.token_bytes(32)
                )
            ),
            dealer_runtime,
        )
        evaluator_runtime = RuntimeSettings(
            service_name="evaluator", address="127.0.0.1:0", auth_key=KEY
        )
        evaluator_server, evaluator_port = create_server(
            build_evaluator(EvaluatorSettings(runtime=evaluator_runtime)), evaluator_runtime
        )
        runtime = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key=KEY)
        settings = TableSettings(
            dealer_target=f"127.0.0.1:{dealer_port}",
            evaluator_target=f"127.0.0.1:{evaluator_port}",
            ledger_target=f"127.0.0.1:{ledger.port}",
            redis_url=url,
            ranker="evaluator",  # every showdown through the evaluator service's RPC
            attention_key=f"croupier:table:attention:{namespace}",
        )
        servers: list[AioServerThread] = []
        clients: list[redis.Redis] = []

        def start_table() -> int:
            """A table instance on its default runtime, grpc.aio (streams hold no thread)."""
            client = redis.Redis.from_url(url)
            clients.append(client)
            store = RedisEventStore(client, codec.registry())
            server = AioServerThread(build_table_aio(settings, runtime, store=store), runtime)
            servers.append(server)
            return server.port

        stack = SoakStack(
            redis_url=url,
            table_port=start_table(),
            ledger_port=ledger.port,
            dealer_port=dealer_port,
            start_replay_instance=start_table,
        )
        try:
            yield stack
        finally:
            for channel in stack.channels:
                channel.close()
            for table_server in servers:
                table_server.stop(0)
            for server in (ledger_server, dealer_server, evaluator_server):
                server.stop(0).wait()
            for client in (*clients, ledger.client):
                client.close()


@dataclass
class SoakReport:
    variant: str
    table_id: str
    target: int  # hands asked for (the hand in progress when the bots leave comes on top)
    hands: int = 0  # hands that ended (counted from the stream)
    actions: int = 0  # bot actions the table accepted (ActionTaken / discards / shows ...)
    top_ups: int = 0
    showdowns_ranked: int = 0
    seconds: float = 0.0
    play_seconds: float = 0.0  # from the first seat to the target hand (setup and checks apart)
    refusals: list[str] = field(default_factory=list)  # illegal or out-of-turn actions
    problems: list[str] = field(default_factory=list)  # every other broken rule, in words

    @property
    def hands_per_second(self) -> float:
        return self.target / self.play_seconds if self.play_seconds else 0.0


class SoakTable:
    """One table of `variant`: create, seat bots, play `hands` hands, then check everything."""

    def __init__(
        self,
        stack: SoakStack,
        variant: str,
        hands: int,
        seats: int = 4,
        stall_s: float = 60.0,
        policies: Mapping[int, Policy] | None = None,
    ) -> None:
        self.stack = stack
        self.variant = variant
        self.target = hands
        self.seats = seats
        self.stall_s = stall_s
        self.preset = preset(variant)
        self.buy_in = BUY_IN_UNITS * self.preset.unit
        self.house = stack.table("house", auth.Role.ADMIN)
        run = uuid.uuid4().hex[:6]
        self.table_id = f"soak-{variant}-{run}"
        self.bots = [
            f"soak-{policy}-{variant}-s{seat}-{run}"
            for seat, policy in enumerate(seating(BOTS, seats))
        ]
        self.policies = dict(zip(self.bots, seating(BOTS, seats), strict=True))
        self.report = SoakReport(variant, self.table_id, hands)
        self._override = dict(policies or {})  # seat -> policy instead of the built-in one
        self._ranker = EvaluatorRanker()
        self._clients: dict[str, BotClient] = {}
        self._stubs: dict[str, table_pb2_grpc.TableServiceStub] = {}
        self._topping: set[int] = set()  # seats topped up whose ChipsAdded is not seen yet
        self._deposited = 0

    # ------------------------------------------------------------------ the run

    def run(self) -> SoakReport:
        started = time.perf_counter()
        try:
            self._create_and_seat()
            playing = time.perf_counter()
            self._play(until_hands=self.target)
            self.report.play_seconds = time.perf_counter() - playing
            self._pause_and_compare("mid-hand")
            for bot in self.bots:
                self._bot_stub(bot).LeaveTable(
                    table_pb2.LeaveTableRequest(table_id=self.table_id, idempotency_key="leave")
                )
            self._play(until_empty=True)  # the hand in progress ends, then everyone is gone
            self._pause_and_compare("after everyone left")
            self._check_ledger_after_leaving()
            self._check_stream()
        except Exception as exc:  # a broken run is a finding with its cause, not a crash
            self.report.problems.append(f"{type(exc).__name__}: {exc}")
        finally:
            for client in self._clients.values():
                self.report.refusals += client.refusals
                client.close()
            self.report.seconds = time.perf_counter() - started
        return self.report

    def _create_and_seat(self) -> None:
        config = self.preset.config(self.seats, 0, BUY_IN_UNITS)
        options = table_pb2.TableOptions(
            game=GAMES[config.game.name],
            structure=STRUCTURES[config.limit.value],
            seats=self.seats,
            currency=CURRENCY,
            small_blind=config.small_blind if self.preset.blinds else 0,
            big_blind=config.big_blind if self.preset.blinds else 0,
            ante=config.ante,
            small_bet=config.small_bet,
            min_buy_in=self.buy_in // 10,
            max_buy_in=self.buy_in,
            action_time_ms=600_000,  # no scheduler runs here anyway: only bots move hands
        )
        self.house.CreateTable(
            table_pb2.CreateTableRequest(
                table_id=self.table_id, options=options, idempotency_key=f"create-{self.table_id}"
            )
        )
        ledger = self.stack.ledger()
        for seat, bot in enumerate(self.bots):
            ledger.OpenAccount(
                ledger_pb2.OpenAccountRequest(
                    kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=bot, currency=CURRENCY
                )
            )
            amount = BANKROLL_BUY_INS * self.buy_in
            ledger.Deposit(
                ledger_pb2.DepositRequest(
                    idempotency_key=f"soak/{bot}/bankroll",
                    account_id=f"player:{bot}:{CURRENCY}",
                    amount=chips_pb2.ChipAmount(currency=CURRENCY, amount=amount),
                )
            )
            self._deposited += amount
            self._bot_stub(bot).JoinTable(
                table_pb2.JoinTableRequest(
                    table_id=self.table_id, seat=seat, buy_in=self.buy_in, idempotency_key="join"
                )
            )

    def _bot_stub(self, bot: str) -> table_pb2_grpc.TableServiceStub:
        if bot not in self._stubs:
            self._stubs[bot] = self.stack.table(bot, auth.Role.BOT)
        return self._stubs[bot]

    def _play(self, *, until_hands: int = 0, until_empty: bool = False) -> None:
        """Let every bot play (SDK threads) while the house watches, until the goal is met."""
        stop = threading.Event()
        errors: list[str] = []
        threads = [
            threading.Thread(target=self._bot_thread, args=(bot, stop, errors), daemon=True)
            for bot in self.bots
        ]
        for thread in threads:
            thread.start()
        try:
            self._watch(stop, errors, until_hands, until_empty)
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
        self.report.problems += errors

    def _bot_thread(self, bot: str, stop: threading.Event, errors: list[str]) -> None:
        client = self._clients.get(bot)
        if client is None:
            token = auth.issue_token(KEY, bot, auth.Role.BOT, 24 * 3600)
            client = BotClient(f"127.0.0.1:{self.stack.table_port}", token, name=bot)
            self._clients[bot] = client
        seat = self.bots.index(bot)
        policy = self._override.get(seat) or make_policy(self.policies[bot], self._ranker, 0.0)
        rng = random.Random(f"{self.table_id}/{bot}/{time.monotonic_ns()}")

        def decide(view: BotView, table: table_pb2.TableView) -> BotAction:
            return policy.choose(view, rng)

        try:
            client.play(self.table_id, decide, stop=stop, max_backoff=0.5, rng=rng)
        except Exception as exc:  # surfaced in the report, not lost in a thread
            errors.append(f"bot {bot} stopped: {type(exc).__name__}: {exc}")

    def _watch(
        self, stop: threading.Event, errors: list[str], until_hands: int, until_empty: bool
    ) -> None:
        stream = self.house.WatchTable(
            table_pb2.WatchTableRequest(table_id=self.table_id, batch=True)
        )
        watchdog = threading.Thread(target=self._watchdog, args=(stream, stop), daemon=True)
        self._last_event = time.monotonic()
        self._stalled = False
        watchdog.start()
        try:
            for message in stream:
                self._last_event = time.monotonic()
                if errors or stop.is_set():
                    return
                if message.HasField("view"):
                    if until_empty and not any(s.player_id for s in message.view.seats):
                        return
                    continue
                for event in message.events.events:
                    kind = event.WhichOneof("event")
                    if kind == "timed_out":
                        raise AssertionError(f"seat timed out: {event}")
                    if kind == "hand_voided":
                        raise AssertionError(f"hand voided: {event.hand_voided}")
                    if kind == "chips_added":
                        self._topping.discard(event.chips_added.seat)
                    if kind == "hand_ended":
                        self._top_up_busted(event.hand_ended)
                        if until_hands and event.hand_ended.hand >= until_hands:
                            return
                    if kind == "player_left" and until_empty:
                        view = self._table_view(self.house)
                        if not any(s.player_id for s in view.seats):
                            return
        except grpc.RpcError as exc:
            if not self._stalled:
                raise
            view = self._table_view(self.house)
            raise AssertionError(
                f"no event for {self.stall_s:.0f} s: hand {view.hand_number} "
                f"(in progress: {view.hand_in_progress}) waits for seat {view.to_act}, "
                f"phase {view.phase!r}, version {view.version}"
            ) from exc
        finally:
            stream.cancel()

    def _watchdog(self, stream: _Finishing, stop: threading.Event) -> None:
        while not stream.done() and not stop.wait(1.0):
            if time.monotonic() - self._last_event > self.stall_s:
                self._stalled = True
                stream.cancel()
                return

    def _top_up_busted(self, ended: poker_pb2.HandEnded) -> None:
        """A bot left with nothing buys back in (it is out of the next hand, so it may)."""
        for entry in ended.stacks:
            # Not twice before the stream shows the first top-up's ChipsAdded: a quick next
            # hand can end (stack still 0) before it lands, and a second would exceed the max.
            if (
                entry.amount == 0
                and entry.seat < len(self.bots)
                and entry.seat not in self._topping
            ):
                bot = self.bots[entry.seat]
                try:
                    self._bot_stub(bot).TopUp(
                        table_pb2.TopUpRequest(
                            table_id=self.table_id,
                            amount=self.buy_in,
                            idempotency_key=f"topup-{ended.hand}",
                        )
                    )
                    self.report.top_ups += 1
                    self._topping.add(entry.seat)
                except grpc.RpcError as exc:
                    # Refused only if the bot is already in the next hand (it was not busted
                    # after all) or gone: the next HandEnded tries again.
                    if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                        raise

    # ------------------------------------------------------------------ checks

    def _table_view(self, stub: table_pb2_grpc.TableServiceStub) -> table_pb2.TableView:
        return stub.GetTableView(table_pb2.GetTableViewRequest(table_id=self.table_id)).view

    def _quiet(self, settle_s: float = 0.5, timeout: float = 30.0) -> table_pb2.TableView:
        """Wait until the table's version stops moving (the bots are paused)."""
        end = time.monotonic() + timeout
        last = self._table_view(self.house)
        while time.monotonic() < end:
            time.sleep(settle_s)
            now = self._table_view(self.house)
            if now.version == last.version:
                return now
            last = now
        raise AssertionError(f"table still moving after the bots stopped: version {last.version}")

    def _pause_and_compare(self, when: str) -> None:
        """Every viewer's live view equals the view of an instance that replays the stream."""
        live_view = self._quiet()
        replay_port = self.stack.start_replay_instance()
        viewers = [("house", auth.Role.ADMIN), *((bot, auth.Role.BOT) for bot in self.bots)]
        for subject, role in viewers:
            live = self._table_view(self.stack.table(subject, role))
            replayed = self._table_view(self.stack.table(subject, role, port=replay_port))
            if live != replayed:
                self.report.problems.append(
                    f"{when}: {subject}'s view differs from a replay of the stream:\n"
                    f"live: {live}\nreplayed: {replayed}"
                )
        if when == "mid-hand":
            on_table = sum(s.stack + s.committed for s in live_view.seats)
            escrow = self.stack.balance(f"table:{self.table_id}:{CURRENCY}")
            if escrow != on_table:
                self.report.problems.append(
                    f"{when}: table escrow holds {escrow} chips, the table has {on_table}"
                )

    def _check_ledger_after_leaving(self) -> None:
        escrow = self.stack.balance(f"table:{self.table_id}:{CURRENCY}")
        held = sum(self.stack.balance(f"player:{bot}:{CURRENCY}") for bot in self.bots)
        if escrow != 0:
            self.report.problems.append(f"escrow holds {escrow} chips after everyone left")
        if held != self._deposited:
            self.report.problems.append(
                f"the bots' accounts hold {held} chips, {self._deposited} were deposited"
            )

    def _check_stream(self) -> None:
        """Hands terminate and no card is dealt twice, from the stored stream and the dealer."""
        client = redis.Redis.from_url(self.stack.redis_url)
        try:
            records = RedisEventStore(client, codec.registry()).read(table_stream(self.table_id))
        finally:
            client.close()
        hands: dict[int, list[object]] = {}
        shuffles: dict[int, str] = {}
        current: int | None = None
        for record in records:
            event = codec.from_message(record.message)
            if isinstance(event, ev.HandStarted):
                current = event.hand
                hands[current] = []
            if isinstance(event, events_pb2.ShuffleRevealed):
                shuffles[event.hand] = event.shuffle_id
            if current is not None:
                hands[current].append(event)
            if isinstance(event, ev.HandEnded | ev.HandVoided):
                current = None
        dealer = self.stack.dealer()
        for number, events in hands.items():
            if not isinstance(events[-1], ev.HandEnded):
                self.report.problems.append(f"hand {number} never ended ({events[-1]})")
                continue
            self.report.hands += 1
            self.report.actions += sum(
                isinstance(e, ev.ActionTaken | ev.CardsDiscarded | ev.CardsShown | ev.HandMucked)
                for e in events
            )
            self.report.showdowns_ranked += any(isinstance(e, ev.HandsRanked) for e in events)
            dealt = dealt_once(number, events, self.report.problems)
            if number not in shuffles:
                self.report.problems.append(f"hand {number}: no shuffle reveal in the stream")
                continue
            self._check_dealer(dealer, number, shuffles[number], dealt)

    def _check_dealer(
        self,
        dealer: dealer_pb2_grpc.DealerServiceStub,
        number: int,
        shuffle_id: str,
        dealt: list[str],
    ) -> None:
        verdict = dealer.Verify(dealer_pb2.VerifyRequest(shuffle_id=shuffle_id))
        if not verdict.ok:
            self.report.problems.append(
                f"hand {number}: the dealer cannot verify shuffle {shuffle_id}: "
                f"{verdict.mismatch.message}"
            )
        info = dealer.GetShuffle(dealer_pb2.GetShuffleRequest(shuffle_id=shuffle_id)).shuffle
        by_dealer = [c for step in info.steps if step.HasField("deal") for c in step.deal.cards]
        if Counter(by_dealer) != Counter(dealt):
            self.report.problems.append(
                f"hand {number}: the table recorded {sorted(dealt)}, "
                f"the dealer dealt {sorted(by_dealer)}"
            )


def dealt_once(number: int, events: Sequence[object], problems: list[str]) -> list[str]:
    """Every card dealt (or burned) in hand `number`, in order; a card dealt while it is still
    out (not discarded and reshuffled into the stub since) is a problem, in words."""
    out: set[str] = set()
    discarded: set[str] = set()
    dealt: list[str] = []
    for event in events:
        if isinstance(event, ev.CardsDealt):
            for card in itertools.chain(event.burned, event.cards):
                if card in out:
                    problems.append(f"hand {number}: {card} dealt twice")
                out.add(card)
                dealt.append(card)
        elif isinstance(event, ev.CardsDiscarded):
            discarded.update(event.cards)
        elif isinstance(event, ev.DiscardsReshuffled):
            for card in event.cards:
                if card not in discarded:
                    problems.append(f"hand {number}: {card} reshuffled but never discarded")
                discarded.discard(card)
                out.discard(card)
    return dealt
