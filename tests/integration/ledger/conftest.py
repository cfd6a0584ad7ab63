"""A real ledger gRPC server (port 0) on the session's real Redis, and authenticated stubs."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from services.ledger.core.shards import shard_of
from services.ledger.server import build, shard_namespace
from services.ledger.settings import LedgerSettings
from services.ledger.store import Concurrency
from services.shared import auth
from services.shared.channels import connect
from services.shared.eventstore.durability import Durability
from services.shared.grpc_server import create_server
from services.shared.settings import RuntimeSettings

KEY = "ledger-test-signing-key-0123456789abcdef"


@dataclass
class LedgerServer:
    port: int
    namespace: str
    client: redis.Redis
    channels: list[grpc.Channel] = field(default_factory=list)
    shards: int = 1
    # Set to stop a sharded ledger's recovery sweep.
    stop_recovery: threading.Event = field(default_factory=threading.Event)

    def namespace_of(self, account_id: str) -> str:
        """The namespace of the shard holding `account_id` (the ledger's, unsharded)."""
        shard = shard_of(account_id, self.shards)
        return shard_namespace(self.namespace, shard, self.shards)

    def close(self) -> None:
        self.stop_recovery.set()
        for channel in self.channels:
            channel.close()
        self.client.close()

    def stub(
        self, subject: str = "table-service", role: auth.Role = auth.Role.SERVICE
    ) -> ledger_pb2_grpc.LedgerServiceStub:
        channel = connect(f"127.0.0.1:{self.port}", auth.issue_token(KEY, subject, role, 600))
        self.channels.append(channel)
        return ledger_pb2_grpc.LedgerServiceStub(channel)


def start_ledger(
    redis_url: str,
    namespace: str,
    concurrency: Concurrency = Concurrency.CHECKED,
    durability: Durability = "everysec",
    cashier_limit: int = 0,
    shards: int = 1,
) -> tuple[grpc.Server, LedgerServer]:
    # The namespace becomes a stream hash tag: keep only the characters a tag allows.
    namespace = re.sub(r"[^A-Za-z0-9_.-]", "-", namespace)
    runtime = RuntimeSettings(service_name="ledger", address="127.0.0.1:0", auth_key=KEY)
    client = redis.Redis.from_url(redis_url)
    settings = LedgerSettings(
        redis_url=redis_url,
        namespace=namespace,
        concurrency=concurrency,
        durability=durability,
        cashier_limit=cashier_limit,
        shards=shards,
        recovery_ms=200,
    )
    stop = threading.Event()
    server, port = create_server(build(settings, client, recovery_stop=stop), runtime)
    handle = LedgerServer(
        port=port, namespace=namespace, client=client, shards=shards, stop_recovery=stop
    )
    return server, handle


@pytest.fixture
def ledger(redis_url: str, key_prefix: str) -> Iterator[LedgerServer]:
    server, handle = start_ledger(redis_url, key_prefix)
    yield handle
    server.stop(0).wait()
    handle.close()


def chips(amount: int, currency: str = "CHIP") -> chips_pb2.ChipAmount:
    return chips_pb2.ChipAmount(currency=currency, amount=amount)


def leg(
    account_id: str, side: ledger_pb2.LegSide.ValueType, amount: int, currency: str = "CHIP"
) -> ledger_pb2.Leg:
    return ledger_pb2.Leg(account_id=account_id, side=side, amount=chips(amount, currency))


def debit(account_id: str, amount: int) -> ledger_pb2.Leg:
    return leg(account_id, ledger_pb2.LEG_SIDE_DEBIT, amount)


def credit(account_id: str, amount: int) -> ledger_pb2.Leg:
    return leg(account_id, ledger_pb2.LEG_SIDE_CREDIT, amount)


def open_accounts(
    stub: ledger_pb2_grpc.LedgerServiceStub, *specs: tuple[ledger_pb2.AccountKind.ValueType, str]
) -> None:
    for kind, name in specs:
        stub.OpenAccount(ledger_pb2.OpenAccountRequest(kind=kind, name=name, currency="CHIP"))


def balance(stub: ledger_pb2_grpc.LedgerServiceStub, account_id: str) -> ledger_pb2.Balance:
    return stub.GetBalance(ledger_pb2.GetBalanceRequest(account_id=account_id)).balance
