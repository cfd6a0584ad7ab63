"""The development cashier: with `cashier_limit` set (`croupier run`), a player funds their own
account with their own token, up to the limit a deposit; off (the default), only services
deposit. Through the client SDK, against the real ledger."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.sdk import ClientSettings, LedgerClient, PermissionDenied, player_account
from services.shared import auth
from tests.integration.ledger.conftest import KEY, start_ledger

pytestmark = pytest.mark.integration


def _ledger(port: int, subject: str, role: auth.Role = auth.Role.PLAYER) -> LedgerClient:
    token = auth.issue_token(KEY, subject, role, 600)
    return LedgerClient(ClientSettings(ledger=f"127.0.0.1:{port}", token=token))


@pytest.fixture
def cashier_port(redis_url: str, key_prefix: str) -> Iterator[int]:
    server, handle = start_ledger(redis_url, key_prefix, cashier_limit=1000)
    yield handle.port
    server.stop(0).wait()
    handle.client.close()


def test_a_player_funds_their_own_account_up_to_the_limit(cashier_port: int) -> None:
    with _ledger(cashier_port, "alice") as alice:
        alice.open_account("alice")
        account = player_account("alice")
        alice.deposit(account, 1000)
        alice.deposit(account, 400)
        assert alice.balance(account).available == 1400
        with pytest.raises(PermissionDenied) as over:
            alice.deposit(account, 1001)
        assert "at most 1000" in over.value.message
        with pytest.raises(PermissionDenied):
            alice.deposit(player_account("bob"), 10)  # someone else's account
        assert alice.balance(account).available == 1400


def test_without_the_cashier_only_services_deposit(redis_url: str, key_prefix: str) -> None:
    server, handle = start_ledger(redis_url, key_prefix)
    try:
        with (
            _ledger(handle.port, "alice") as alice,
            _ledger(handle.port, "table", auth.Role.SERVICE) as table,
        ):
            alice.open_account("alice")
            with pytest.raises(PermissionDenied) as refused:
                alice.deposit(player_account("alice"), 10)
            assert "only the platform's services move chips" in refused.value.message
            table.deposit(player_account("alice"), 10)
            assert alice.balance(player_account("alice")).available == 10
    finally:
        server.stop(0).wait()
        handle.client.close()
