"""The table service over real gRPC, with a real ledger and dealer on the session's Redis."""

from __future__ import annotations

import queue
import secrets
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeAlias, TypedDict, Unpack

import grpc
import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import events_pb2, table_pb2, table_pb2_grpc
from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.games.cardtext import FULL_DECK
from services.shared import auth
from services.shared.channels import BearerTokenInterceptor, channel_options
from services.shared.eventstore import RedisEventStore
from services.shared.grpc_server import create_server
from services.shared.settings import DEFAULT_MAX_MESSAGE_BYTES, RuntimeSettings
from services.table import codec
from services.table.server import build, build_aio
from services.table.settings import TableSettings
from tests.fixtures.aio_server_thread import AioServerThread
from tests.integration.ledger.conftest import start_ledger

KEY = "ledger-test-signing-key-0123456789abcdef"

# What a WatchTable call returns: its messages, and cancel(). grpc's stubs call it
# _CallIterator, a name that exists only in the stubs, hence the string.
WatchStream: TypeAlias = "grpc._CallIterator[table_pb2.WatchTableResponse]"


def full_deck(prefix: Sequence[str]) -> list[str]:
    """A whole 52-card dealing order starting with `prefix` (the dealer's test-deck mode)."""
    rest = [c for c in FULL_DECK if c not in prefix]
    return [*prefix, *rest]


@dataclass
class Platform:
    port: int
    ledger_port: int
    dealer_port: int = 0
    decks: dict[str, list[str]] = field(default_factory=dict)
    start_instance: Callable[[], int] | None = None
    stop_dealer: Callable[[], None] | None = None
    stop_tables: Callable[[], None] | None = None
    channels: list[grpc.Channel] = field(default_factory=list)

    def _channel(self, port: int, subject: str, role: auth.Role) -> grpc.Channel:
        # A subchannel of its own: gRPC shares subchannels by address across a process's
        # channels, and a server port the OS hands out again (one an earlier test's stopped
        # server had) can still have a shared subchannel in reconnect backoff, which fails
        # this channel's first call at once (UNAVAILABLE, connection refused).
        options = [
            *channel_options(DEFAULT_MAX_MESSAGE_BYTES),
            ("grpc.use_local_subchannel_pool", 1),
        ]
        plain = grpc.insecure_channel(f"127.0.0.1:{port}", options=options)
        token = auth.issue_token(KEY, subject, role, 600)
        channel = grpc.intercept_channel(plain, BearerTokenInterceptor(token))
        self.channels.append(channel)
        return channel

    def table(
        self, subject: str, role: auth.Role = auth.Role.PLAYER, port: int | None = None
    ) -> table_pb2_grpc.TableServiceStub:
        return table_pb2_grpc.TableServiceStub(self._channel(port or self.port, subject, role))

    def ledger(self) -> ledger_pb2_grpc.LedgerServiceStub:
        return ledger_pb2_grpc.LedgerServiceStub(
            self._channel(self.ledger_port, "test", auth.Role.SERVICE)
        )

    def fund(self, player: str, amount: int, currency: str = "CHIP", key: str = "") -> None:
        """Open `player`'s account (if new) and deposit `amount` into it, under the
        deposit's idempotency `key` when given (a fresh one otherwise)."""
        stub = self.ledger()
        stub.OpenAccount(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency=currency
            )
        )
        stub.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=key or f"fund/{player}/{uuid.uuid4().hex}",
                account_id=f"player:{player}:{currency}",
                amount=chips_pb2.ChipAmount(currency=currency, amount=amount),
            )
        )

    def balance(self, account: str) -> int:
        return (
            self.ledger()
            .GetBalance(ledger_pb2.GetBalanceRequest(account_id=account))
            .balance.balance
        )


def new_table_id() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def platform(redis_url: str, key_prefix: str, request: pytest.FixtureRequest) -> Iterator[Platform]:
    """The platform with its table instances on the table's default runtime, grpc.aio
    (server.build_aio); a module may run its tests on both runtimes with
    `pytest.mark.parametrize("platform", ["aio", "sync"], indirect=True)`."""
    runtime_name = getattr(request, "param", "aio")
    # These tests play hands move by move and send no entropy: their tables wait for none
    # (`entropy_windows(commit_ms, reveal_ms)` marks a test of the windows themselves).
    windows = request.node.get_closest_marker("entropy_windows")
    commit_ms, reveal_ms = windows.args if windows is not None else (0, 0)
    idle = request.node.get_closest_marker("idle_shuffles")
    idle_s, grace_s = idle.args if idle is not None else (0.0, 5.0)
    ledger_server, ledger = start_ledger(redis_url, key_prefix)
    runtime = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key=KEY)
    settings = TableSettings(
        dealer_target="unused",
        evaluator_target="unused",
        ledger_target=f"127.0.0.1:{ledger.port}",
        redis_url=redis_url,
        void_after_s=1.0,
        attention_key=f"croupier:table:attention:{key_prefix}",
        entropy_commit_ms=commit_ms,
        entropy_reveal_ms=reveal_ms,
        idle_shuffles_s=idle_s,
        recovery_grace_s=grace_s,
    )
    dealer_runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
    dealer_settings = DealerSettings(
        runtime=dealer_runtime,
        redis_url=redis_url,
        dealer_key=secrets.token_bytes(32),
        allow_test_decks=True,
    )
    dealer_server, dealer_port = create_server(build_dealer(dealer_settings), dealer_runtime)
    decks: dict[str, list[str]] = {}

    def pinned(shuffle_id: str) -> list[str] | None:
        prefix = decks.get(shuffle_id)
        return None if prefix is None else full_deck(prefix)

    clients: list[redis.Redis] = []
    servers: list[grpc.Server] = []
    aio_servers: list[AioServerThread] = []
    settings = replace(settings, dealer_target=f"127.0.0.1:{dealer_port}")

    def start_instance() -> int:
        """One more table-service instance on the same Redis, dealer and ledger."""
        client = redis.Redis.from_url(redis_url)
        clients.append(client)
        store = RedisEventStore(client, codec.registry())
        if runtime_name == "aio":
            aio = AioServerThread(
                build_aio(settings, runtime, store=store, test_decks=pinned), runtime
            )
            aio_servers.append(aio)
            return aio.port
        spec = build(settings, runtime, store=store, test_decks=pinned)
        server, port = create_server(spec, runtime)
        servers.append(server)
        return port

    def stop_dealer() -> None:
        dealer_server.stop(0).wait()

    def stop_tables() -> None:
        """Stop every table instance at once (no grace for RPCs in flight)."""
        for server in servers:
            server.stop(0).wait()
        for aio in aio_servers:
            aio.stop()

    handle = Platform(
        port=start_instance(),
        ledger_port=ledger.port,
        dealer_port=dealer_port,
        decks=decks,
        start_instance=start_instance,
        stop_dealer=stop_dealer,
        stop_tables=stop_tables,
    )
    yield handle
    for channel in handle.channels:
        channel.close()
    stop_tables()
    ledger_server.stop(0).wait()
    dealer_server.stop(0).wait()
    for client in clients:
        client.close()


class TableOptionFields(TypedDict, total=False):
    """The keyword arguments of table_pb2.TableOptions, so that create_table's `options`
    are checked field by field against the message."""

    game: table_pb2.Game.ValueType
    structure: table_pb2.Structure.ValueType
    seats: int
    currency: str
    small_blind: int
    big_blind: int
    ante: int
    small_bet: int
    big_bet: int
    raise_cap: int
    capped_heads_up: bool
    min_buy_in: int
    max_buy_in: int
    action_time_ms: int
    time_bank_ms: int
    rake_basis_points: int
    rake_cap: int
    draw_limit: int
    five_of_a_kind: table_pb2.FiveKind.ValueType
    first_button: int | None
    min_players_to_start: int
    time_bank_chunk_ms: int
    time_bank_refill_ms: int
    time_bank_refill_every_hands: int
    time_bank_cap_ms: int
    seed_reveal: events_pb2.SeedReveal.ValueType


def create_table(
    platform: Platform,
    table_id: str | None = None,
    *,
    bots: Sequence[tuple[str, float]] = (),
    **options: Unpack[TableOptionFields],
) -> str:
    """Create a table as the house: hold'em 1/2 no-limit for six unless `options` say
    otherwise; `bots` are the (policy, difficulty) bots requested at CreateTable."""
    table_id = table_id or new_table_id()
    defaults = TableOptionFields(
        game=table_pb2.GAME_TEXAS_HOLDEM,
        structure=table_pb2.STRUCTURE_NO_LIMIT,
        seats=6,
        small_blind=1,
        big_blind=2,
        min_buy_in=20,
        max_buy_in=10_000_000,
    )
    defaults.update(options)
    admin = platform.table("house", auth.Role.ADMIN)
    admin.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=table_id,
            idempotency_key=f"create-{table_id}",
            options=table_pb2.TableOptions(**defaults),
            bots=[table_pb2.BotSeat(policy=p, difficulty=d) for p, d in bots],
        )
    )
    return table_id


def seat(
    platform: Platform, table_id: str, player: str, seat_no: int, buy_in: int
) -> table_pb2_grpc.TableServiceStub:
    """Fund `player`, take `seat_no` with `buy_in`; returns the player's stub."""
    platform.fund(player, buy_in)
    stub = platform.table(player)
    stub.JoinTable(
        table_pb2.JoinTableRequest(
            table_id=table_id, seat=seat_no, buy_in=buy_in, idempotency_key=f"join-{player}"
        )
    )
    return stub


def events_in(message: table_pb2.WatchTableResponse) -> list[events_pb2.TableEvent]:
    """The events of one WatchTable message: one unbatched, several batched, none in a view."""
    if message.HasField("events"):
        return list(message.events.events)
    return [message.event] if message.HasField("event") else []


def view_of(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> table_pb2.TableView:
    return stub.GetTableView(table_pb2.GetTableViewRequest(table_id=table_id)).view


def wait_for_turn(
    stub: table_pb2_grpc.TableServiceStub, table_id: str, timeout_s: float = 10.0
) -> table_pb2.TableView:
    """The view once a hand is on and a seat is to act, or the last view read at the timeout.
    A hand starts right after the join that makes it possible, but its deal (dealer calls,
    then appends) can still be under way when the joining call has returned."""
    deadline = time.monotonic() + timeout_s
    while True:
        view = view_of(stub, table_id)
        if (view.hand_in_progress and view.to_act >= 0) or time.monotonic() > deadline:
            return view
        time.sleep(0.01)


def act(
    stub: table_pb2_grpc.TableServiceStub,
    table_id: str,
    hand: int,
    action: table_pb2.Action.ValueType,
    amount: int = 0,
    cards: Iterable[str] = (),
    key: str | None = None,
    expected_version: int = 0,
) -> table_pb2.ActResponse:
    return stub.Act(
        table_pb2.ActRequest(
            table_id=table_id,
            hand_number=hand,
            action=action,
            amount=amount,
            cards=list(cards),
            idempotency_key=key or uuid.uuid4().hex,
            expected_version=expected_version,
        )
    )


def passive_action(
    view: table_pb2.TableView,
) -> tuple[table_pb2.Action.ValueType, int, tuple[str, ...]]:
    """Check/call/stand pat/show: the action that never risks more than calling."""
    legal = {a.action: a for a in view.legal_actions}
    for action in (
        table_pb2.ACTION_CHECK,
        table_pb2.ACTION_CALL,
        table_pb2.ACTION_SHOW,
    ):
        if action in legal:
            return action, 0, ()
    if table_pb2.ACTION_DISCARD in legal:
        return table_pb2.ACTION_DISCARD, 0, ()
    if table_pb2.ACTION_OPEN_DISCARD in legal:
        return (
            table_pb2.ACTION_OPEN_DISCARD,
            0,
            (legal[table_pb2.ACTION_OPEN_DISCARD].discardable[0],),
        )
    return table_pb2.ACTION_FOLD, 0, ()


class PlayStream:
    """One player's Play stream, driven one Act at a time."""

    def __init__(self, stub: table_pb2_grpc.TableServiceStub) -> None:
        self._requests: queue.Queue[table_pb2.PlayRequest | None] = queue.Queue()
        self._responses: Iterator[table_pb2.PlayResponse] = stub.Play(
            iter(self._requests.get, None)
        )

    def act(
        self,
        table_id: str,
        action: table_pb2.Action.ValueType,
        *,
        amount: int = 0,
        key: str | None = None,
        seat: int | None = None,
        hand: int = 0,
    ) -> table_pb2.PlayResponse:
        request = table_pb2.ActRequest(
            table_id=table_id,
            hand_number=hand,
            action=action,
            amount=amount,
            idempotency_key=key or uuid.uuid4().hex,
        )
        if seat is not None:
            request.seat = seat
        return self.send(table_pb2.PlayRequest(act=request))

    def send(self, request: table_pb2.PlayRequest) -> table_pb2.PlayResponse:
        """Send one request as it is; its answer."""
        self._requests.put(request)
        return next(self._responses)

    def close(self) -> None:
        self._requests.put(None)  # ends the request stream: the server ends the call
        assert list(self._responses) == []
