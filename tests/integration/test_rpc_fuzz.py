"""Every RPC of every service, fuzzed: no request, from any caller, is answered INTERNAL or
UNKNOWN. A bad request gets a status that says what kind of refusal it is (INVALID_ARGUMENT,
NOT_FOUND, PERMISSION_DENIED, ...), never "something broke".

The request messages are generated from the services' own descriptors (hypothesis): every
field of every message, nested ones too, set or not, with values chosen to hurt: the ends of
each integer type, NaN and infinities, empty, long (70,000 characters), non-ASCII and control
characters, unknown enum numbers, and now and then a value that names something real (the
seated player's table, her account, an open shuffle, a cursor), so that the requests get past
the first checks. Each is sent with a player's, a bot's, an admin's, a service's or no token.
All four services run on a private Redis of their own. Bounded: a fixed number of examples a
method (derandomized, so a run is repeatable), a few seconds in all.
"""

from __future__ import annotations

import math
import secrets
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import grpc
import pytest
import redis
from google.protobuf import descriptor as pb_descriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.common.v1 import chips_pb2
from croupier.dealer.v1 import dealer_pb2
from croupier.evaluator.v1 import evaluator_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.dealer.server import build as build_dealer
from services.dealer.settings import DealerSettings
from services.evaluator.server import build as build_evaluator
from services.evaluator.settings import EvaluatorSettings
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore import RedisEventStore
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings
from services.table import codec
from services.table.server import build as build_table
from services.table.settings import TableSettings
from tests.fixtures.redis_server import RedisServer
from tests.integration.ledger.conftest import KEY, start_ledger

pytestmark = pytest.mark.integration
EXAMPLES = 30  # per method: 40 methods, 1,200 requests, some 10-20 s in all
CALL_TIMEOUT_S = 10.0
# A watch from a version not yet written waits for it: its first message may never come.
STREAM_TIMEOUT_S = 0.5
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
SERVICES = [
    ledger_pb2.DESCRIPTOR.services_by_name["LedgerService"],
    dealer_pb2.DESCRIPTOR.services_by_name["DealerService"],
    evaluator_pb2.DESCRIPTOR.services_by_name["EvaluatorService"],
    table_pb2.DESCRIPTOR.services_by_name["TableService"],
]
CALLERS = [
    ("alice", auth.Role.PLAYER),
    ("bot-tight-50-fuzz", auth.Role.BOT),
    ("house", auth.Role.ADMIN),
    ("table", auth.Role.SERVICE),  # the dealer's table service subject
    ("", None),  # no token at all
]


@dataclass
class Stack:
    ports: dict[str, int]
    table_id: str
    shuffle_id: str
    cursor: str
    channels: dict[tuple[str, str], grpc.Channel]
    live_table_id: str = ""  # a live-dealer table, its hand waiting for the dealer's reports

    def channel(self, service: str, subject: str, role: auth.Role | None) -> grpc.Channel:
        key = (service, subject)
        if key not in self.channels:
            target = f"127.0.0.1:{self.ports[service]}"
            token = auth.issue_token(KEY, subject, role, 600) if role is not None else None
            self.channels[key] = connect(target, token) if token else grpc.insecure_channel(target)
        return self.channels[key]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with RedisServer.private_server() as server:
        url = server.url
        ledger_server, ledger = start_ledger(url, "fuzz")
        dealer_runtime = RuntimeSettings(service_name="dealer", address="127.0.0.1:0", auth_key=KEY)
        dealer_server, dealer_port = create_server(
            build_dealer(
                DealerSettings(
                    runtime=dealer_runtime, redis_url=url, dealer_key=secrets.token_bytes(32)
                )
            ),
            dealer_runtime,
        )
        evaluator_settings = EvaluatorSettings.from_env(
            {"CROUPIER_AUTH_KEY": KEY, "CROUPIER_EVALUATOR_METRICS_PORT": "0"}
        )
        evaluator_server, evaluator_port = create_server(
            build_evaluator(evaluator_settings), evaluator_settings.runtime
        )
        table_runtime = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key=KEY)
        client = redis.Redis.from_url(url)
        table_settings = TableSettings(
            dealer_target=f"127.0.0.1:{dealer_port}",
            evaluator_target=f"127.0.0.1:{evaluator_port}",
            ledger_target=f"127.0.0.1:{ledger.port}",
            redis_url=url,
        )
        table_settings = replace(table_settings, attention_key="croupier:table:attention:fuzz")
        table_server, table_port = create_server(
            build_table(
                table_settings, table_runtime, store=RedisEventStore(client, codec.registry())
            ),
            table_runtime,
        )
        ports = {
            "croupier.ledger.v1.LedgerService": ledger.port,
            "croupier.dealer.v1.DealerService": dealer_port,
            "croupier.evaluator.v1.EvaluatorService": evaluator_port,
            "croupier.table.v1.TableService": table_port,
        }
        handle = Stack(ports, "", "fuzz-shuffle", "", {})
        try:
            seed(handle, ledger.stub())
            yield handle
        finally:
            for channel in handle.channels.values():
                channel.close()
            for grpc_server in (table_server, evaluator_server, dealer_server, ledger_server):
                grpc_server.stop(0).wait()
            client.close()
            ledger.client.close()


def seed(stack: Stack, ledger: ledger_pb2_grpc.LedgerServiceStub) -> None:
    """Real things for requests to name: alice funded and seated at a table, a shuffle."""
    table = table_pb2_grpc.TableServiceStub(
        stack.channel("croupier.table.v1.TableService", "house", auth.Role.ADMIN)
    )
    stack.table_id = table.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=f"fuzz{uuid.uuid4().hex[:8]}",
            idempotency_key="create",
            options=table_pb2.TableOptions(
                game=table_pb2.GAME_TEXAS_HOLDEM,
                structure=table_pb2.STRUCTURE_NO_LIMIT,
                seats=6,
                small_blind=1,
                big_blind=2,
                min_buy_in=20,
                max_buy_in=1000,
            ),
        )
    ).table_id
    for player in ("alice", "bob"):
        ledger.OpenAccount(
            ledger_pb2.OpenAccountRequest(
                kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency="CHIP"
            )
        )
        ledger.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=f"fund/{player}",
                account_id=f"player:{player}:CHIP",
                amount=chips_pb2.ChipAmount(currency="CHIP", amount=10_000),
            )
        )
    alice = table_pb2_grpc.TableServiceStub(
        stack.channel("croupier.table.v1.TableService", "alice", auth.Role.PLAYER)
    )
    alice.JoinTable(
        table_pb2.JoinTableRequest(
            table_id=stack.table_id, seat=0, buy_in=500, idempotency_key="join"
        )
    )
    history = ledger.History(ledger_pb2.HistoryRequest(account_id="player:alice:CHIP"))
    stack.cursor = history.movements[0].cursor
    stack.live_table_id = table.CreateTable(
        table_pb2.CreateTableRequest(
            table_id=f"live{uuid.uuid4().hex[:8]}",
            idempotency_key="create-live",
            options=table_pb2.TableOptions(
                poker=poker_pb2.PokerOptions(
                    variant=poker_pb2.VARIANT_TEXAS_HOLDEM,
                    small_blind=1,
                    big_blind=2,
                    live_dealer=True,
                ),
                seats=6,
                min_buy_in=20,
                max_buy_in=1000,
            ),
        )
    ).table_id
    for seat, player in enumerate(("alice", "bob")):
        stub = table_pb2_grpc.TableServiceStub(
            stack.channel("croupier.table.v1.TableService", player, auth.Role.PLAYER)
        )
        stub.JoinTable(
            table_pb2.JoinTableRequest(
                table_id=stack.live_table_id, seat=seat, buy_in=500, idempotency_key="join-live"
            )
        )


# ------------------------------------------------------------------ request strategies

LONG = "x" * 70_000
NASTY_TEXT = ["", " ", LONG, "é" * 300, "\x00", "\u202e", "../..", "{table:x}:events", "-", "0"]
INT_EDGES = {
    "32": [0, 1, -1, 2**31 - 1, -(2**31)],
    "u32": [0, 1, 2**32 - 1],
    "64": [0, 1, -1, 2**53, 2**53 + 1, 2**63 - 1, -(2**63)],
    "u64": [0, 1, 2**53 + 1, 2**64 - 1],
}
FD = pb_descriptor.FieldDescriptor
_INTS = {
    FD.TYPE_INT32: "32",
    FD.TYPE_SINT32: "32",
    FD.TYPE_SFIXED32: "32",
    FD.TYPE_UINT32: "u32",
    FD.TYPE_FIXED32: "u32",
    FD.TYPE_INT64: "64",
    FD.TYPE_SINT64: "64",
    FD.TYPE_SFIXED64: "64",
    FD.TYPE_UINT64: "u64",
    FD.TYPE_FIXED64: "u64",
}
_RANGES = {
    "32": (-(2**31), 2**31 - 1),
    "u32": (0, 2**32 - 1),
    "64": (-(2**63), 2**63 - 1),
    "u64": (0, 2**64 - 1),
}


def text_values(stack: Stack, name: str) -> st.SearchStrategy[str]:
    """A string field's values: mostly real ones of its kind (by the field's name), so that
    requests get past the first checks, and the nasty and the random."""
    accounts = [
        "player:alice:CHIP",
        "player:bob:CHIP",
        f"table:{stack.table_id}:CHIP",
        "external:world:CHIP",
        "house:rake:CHIP",
    ]
    kinds = {
        "account": accounts,
        "table_id": [stack.table_id, stack.live_table_id],
        "shuffle_id": [stack.shuffle_id, f"{stack.table_id}.hand-1"],
        "reservation": [f"{stack.table_id}/join/alice/join"],
        "before": [stack.cursor, "0-0", "1-1"],
        "cursor": [stack.cursor, "0-0"],
        "token": ["", "1", "999999999999999999999"],
        "currency": ["CHIP"],
        "idempotency_key": ["player:alice/k", "k", f"{stack.table_id}/1/settle"],
        "key": ["player:alice/k", "k"],
        "contributor": ["alice", "bob"],
        "player": ["alice", "bob"],
        "name": ["alice", "rake", stack.table_id],
        "policy": ["tight", "random", "equity"],
        "card": ["As", "Kd", "2c", "Xx"],
        "board": ["As", "Kd", "2c"],
        "order": ["As", "Kd", "2c"],
        "deadline": ["1/1", "0/0"],
    }
    real = [value for part, values in kinds.items() if part in name for value in values]
    generic = st.one_of(st.sampled_from(NASTY_TEXT), st.text(max_size=24))
    if not real:
        return st.one_of(st.sampled_from(["alice", stack.table_id, "As", "CHIP"]), generic)
    plausible = st.sampled_from(real)
    return st.one_of(plausible, plausible, plausible, generic)


def scalar(field: pb_descriptor.FieldDescriptor, stack: Stack) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in _INTS:
        width = _INTS[kind]
        low, high = _RANGES[width]
        return st.one_of(
            st.sampled_from(INT_EDGES[width]),
            st.integers(max(low, -3), 60),
            st.integers(low, high),
        )
    if kind == FD.TYPE_BOOL:
        return st.booleans()
    if kind in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
        return st.one_of(
            st.sampled_from([0.0, 0.5, 1.0, -1.0, math.nan, math.inf, -math.inf, 1e308]),
            st.floats(width=32 if kind == FD.TYPE_FLOAT else 64),
        )
    if kind == FD.TYPE_STRING:
        return text_values(stack, field.name)
    if kind == FD.TYPE_BYTES:
        return st.one_of(
            st.binary(max_size=40),
            st.sampled_from([b"", b"\0" * 32, b"\xff" * 129, b"x" * 70_000]),
        )
    if kind == FD.TYPE_ENUM:
        assert field.enum_type is not None
        numbers = st.sampled_from([value.number for value in field.enum_type.values])
        return st.one_of(numbers, numbers, st.sampled_from([-1, 999, 2**31 - 1]))
    raise AssertionError(field.full_name)


def message(
    descriptor: pb_descriptor.Descriptor, stack: Stack, depth: int = 0
) -> st.SearchStrategy[Message]:
    cls = GetMessageClass(descriptor)

    def value(field: pb_descriptor.FieldDescriptor) -> st.SearchStrategy[Any]:
        if field.type == FD.TYPE_MESSAGE:
            if depth >= 3 or field.message_type is None:
                return st.nothing()
            return message(field.message_type, stack, depth + 1)
        return scalar(field, stack)

    def field_value(field: pb_descriptor.FieldDescriptor) -> st.SearchStrategy[Any]:
        if field.is_repeated:
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                return st.just(None)  # (no maps in these requests' interesting paths)
            return st.lists(value(field), max_size=4 if depth < 2 else 1)
        return value(field)

    def present(field: pb_descriptor.FieldDescriptor) -> st.SearchStrategy[Any]:
        # Mostly set (a field left out is the easy case), nested messages more than scalars.
        chosen = field_value(field)
        weight = 3 if field.type == FD.TYPE_MESSAGE else 2
        return st.one_of(st.none(), *[chosen] * weight)

    fields = {f.name: present(f) for f in descriptor.fields}

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        chosen = draw(st.fixed_dictionaries(fields))
        # One member (or none) of each oneof, as a client could send.
        for oneof in descriptor.oneofs:
            members = [f.name for f in oneof.fields if chosen.get(f.name) is not None]
            keep = draw(st.sampled_from(members)) if members else None
            for name in members:
                if name != keep:
                    chosen[name] = None
        built = cls()
        for name, item in chosen.items():
            if item is None:
                continue
            field = descriptor.fields_by_name[name]
            target = getattr(built, name) if field.is_repeated else None
            if target is not None:
                if field.type == FD.TYPE_MESSAGE:
                    for element in item:
                        target.add().CopyFrom(element)
                else:
                    target.extend(item)
            elif field.type == FD.TYPE_MESSAGE:
                getattr(built, name).CopyFrom(item)
            else:
                setattr(built, name, item)
        return built

    return build()


# ------------------------------------------------------------------ calling


def call(
    channel: grpc.Channel, method: pb_descriptor.MethodDescriptor, requests: list[Message]
) -> grpc.StatusCode:
    """Send the request(s) the way the method takes them; the status the call ends with."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    output = GetMessageClass(method.output_type)
    serialize: Callable[[Message], bytes] = lambda m: m.SerializeToString()  # noqa: E731
    try:
        if method.client_streaming:
            multi = channel.stream_stream(
                path, request_serializer=serialize, response_deserializer=output.FromString
            )
            for _ in multi(iter(requests), timeout=CALL_TIMEOUT_S):
                pass
        elif method.server_streaming:
            stream = channel.unary_stream(
                path, request_serializer=serialize, response_deserializer=output.FromString
            )(requests[0], timeout=STREAM_TIMEOUT_S)
            # The first message (a watch's view, or the refusal); then the client goes.
            next(iter(stream), None)
            stream.cancel()
        else:
            channel.unary_unary(
                path, request_serializer=serialize, response_deserializer=output.FromString
            )(requests[0], timeout=CALL_TIMEOUT_S)
    except grpc.RpcError as exc:
        assert isinstance(exc, grpc.Call)
        return exc.code()
    return grpc.StatusCode.OK


METHODS = [(service, method) for service in SERVICES for method in service.methods]


@pytest.mark.parametrize("service, method", METHODS, ids=[f"{s.name}.{m.name}" for s, m in METHODS])
def test_no_request_is_answered_internal_or_unknown(
    stack: Stack,
    service: pb_descriptor.ServiceDescriptor,
    method: pb_descriptor.MethodDescriptor,
) -> None:
    requests = st.lists(message(method.input_type, stack), min_size=1, max_size=3)
    # (and the live table's own dealer console, whose reports reach the live rules)
    dealer = (f"fuzz-dealer@{stack.live_table_id}", auth.Role.DEALER_CONSOLE)
    callers = st.sampled_from([*CALLERS, dealer])

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(requests=requests, caller=callers)
    def probe(requests: list[Message], caller: tuple[str, auth.Role | None]) -> None:
        channel = stack.channel(service.full_name, *caller)
        code = call(channel, method, requests)
        assert code not in FORBIDDEN, (code, caller, [str(r)[:300] for r in requests])

    probe()
