"""The Redis-backed application behaves exactly like the pure core: for random command
sequences every command succeeds or fails (with the same status) on both, and the live
balances and holds equal the pure fold."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.ledger import codec
from services.ledger.application import LedgerApplication
from services.ledger.core.commands import Deposit, Post, Reserve, Transfer, Void, Withdraw
from services.ledger.core.decide import decide
from services.ledger.core.state import LedgerState, apply_all
from services.ledger.redis_store import RedisLedgerStore
from services.shared.auth import Principal, Role
from services.shared.errors import DomainError
from tests.fixtures.redis_server import RedisServer
from tests.unit.ledger.test_properties import SETUP, commands

pytestmark = pytest.mark.integration

SERVICE = Principal("table", Role.SERVICE)
_namespaces = itertools.count()


def _request(command: object) -> tuple[str, object]:
    match command:
        case Deposit() | Withdraw():
            return type(command).__name__.lower(), getattr(
                ledger_pb2, f"{type(command).__name__}Request"
            )(
                idempotency_key=command.key,
                account_id=command.account_id,
                amount=chips_pb2.ChipAmount(currency=command.currency, amount=command.amount),
            )
        case Transfer() | Reserve():
            return type(command).__name__.lower(), getattr(
                ledger_pb2, f"{type(command).__name__}Request"
            )(idempotency_key=command.key, legs=codec.legs_to_pb(command.legs))
        case Post():
            return "post", ledger_pb2.PostRequest(
                idempotency_key=command.key,
                reservation_id=command.reservation_id,
                amount=command.amount,
            )
        case Void():
            return "void", ledger_pb2.VoidRequest(
                idempotency_key=command.key, reservation_id=command.reservation_id
            )
    raise AssertionError(command)


@pytest.fixture(scope="module")
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_server.client()


@settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(commands, min_size=5, max_size=30))
def test_redis_application_agrees_with_the_pure_core(
    client: redis.Redis, sequence: list[Deposit | Withdraw | Transfer | Reserve | Post | Void]
) -> None:
    store = RedisLedgerStore(client, namespace=f"agree-{next(_namespaces)}")
    app = LedgerApplication(store)
    state = LedgerState()
    for opening in SETUP:
        state = apply_all(state, decide(state, opening))
        app.open_account(
            ledger_pb2.OpenAccountRequest(
                kind=codec._KINDS[opening.kind], name=opening.name, currency=opening.currency
            ),
            SERVICE,
        )
    reserved: set[str] = set()
    for number, command in enumerate(sequence):
        # Keys are unique per command here (replays have their own tests); a Reserve's key is
        # its reservation id, so a repeated one is skipped: the service would answer it as a
        # replay, which the core alone cannot know.
        if isinstance(command, Reserve):
            if command.key in reserved:
                continue
            reserved.add(command.key)
        else:
            command = dataclasses.replace(command, key=f"{number}/{command.key}")
        method, request = _request(command)
        try:
            expected = decide(state, command)
            expected_error = None
        except DomainError as error:
            expected, expected_error = [], type(error)
        try:
            getattr(app, method)(request, SERVICE)
            actual_error = None
        except DomainError as error:
            actual_error = type(error)
        assert actual_error == expected_error, (command, actual_error, expected_error)
        state = apply_all(state, expected)
    for account_id in state.accounts:
        live = app.get_balance(ledger_pb2.GetBalanceRequest(account_id=account_id), SERVICE)
        assert (live.balance.balance, live.balance.held) == (
            state.balance(account_id),
            state.held_in(account_id),
        ), account_id
    assert app.audit(ledger_pb2.AuditRequest(), SERVICE).clean
