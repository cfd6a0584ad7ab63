"""Strict durability: a commit (and a replay of it) is acknowledged only after Redis confirms
the AOF fsync with WAITAOF; a server that cannot confirm it is refused at start-up."""

from __future__ import annotations

import pytest
import redis

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2
from services.ledger.application import LedgerApplication
from services.ledger.redis_store import RedisLedgerStore
from services.shared.auth import Principal, Role
from services.shared.redis_embedded import EmbeddedRedis, find_server_binaries
from tests.fixtures.redis_server import RedisServer

pytestmark = pytest.mark.integration

SERVICE = Principal("table", Role.SERVICE)


def _waitaof_calls(client: redis.Redis) -> int:
    stats = client.info("commandstats").get("cmdstat_waitaof", {})
    return int(stats.get("calls", 0)) if isinstance(stats, dict) else 0


def test_strict_commits_and_replays_wait_for_the_fsync(waitaof_server: RedisServer) -> None:
    client = waitaof_server.client()
    app = LedgerApplication(RedisLedgerStore(client, namespace="strict", durability="strict"))
    app.open_account(
        ledger_pb2.OpenAccountRequest(
            kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name="alice", currency="CHIP"
        ),
        SERVICE,
    )
    before = _waitaof_calls(client)
    request = ledger_pb2.DepositRequest(
        idempotency_key="d1",
        account_id="player:alice:CHIP",
        amount=chips_pb2.ChipAmount(currency="CHIP", amount=10),
    )
    first = app.deposit(request, SERVICE)
    again = app.deposit(request, SERVICE)
    assert first.SerializeToString() == again.SerializeToString()
    assert _waitaof_calls(client) - before == 2


def test_strict_mode_refuses_a_server_without_waitaof() -> None:
    old = [b for b in find_server_binaries() if not b.supports_waitaof]
    if not old:
        pytest.skip("every server binary here supports WAITAOF: nothing to refuse")
    server = EmbeddedRedis(old[0]).start()
    try:
        with pytest.raises(RuntimeError, match=r"durability 'strict' needs WAITAOF"):
            RedisLedgerStore(redis.Redis.from_url(server.url), durability="strict")
    finally:
        server.close()
