"""Who may do what: services move chips, players read and cash out only their own accounts."""

from __future__ import annotations

import pytest

from services.ledger import authorization as authz
from services.shared.auth import Principal, Role
from services.shared.errors import PermissionDenied

SERVICE = Principal("table", Role.SERVICE)
ADMIN = Principal("root", Role.ADMIN)
ALICE = Principal("alice", Role.PLAYER)
BOT = Principal("bot7", Role.BOT)
CONSOLE = Principal("desk", Role.DEALER_CONSOLE)


@pytest.mark.parametrize("principal", [ADMIN, ALICE, BOT, CONSOLE])
def test_only_services_move_chips(principal: Principal) -> None:
    with pytest.raises(PermissionDenied, match="only the platform's services move chips"):
        authz.may_move_chips(principal, "transfer chips")
    authz.may_move_chips(SERVICE, "transfer chips")


def test_a_player_cashes_out_only_of_their_own_account() -> None:
    authz.may_withdraw(ALICE, "player:alice:CHIP")
    authz.may_withdraw(BOT, "player:bot7:CHIP")
    authz.may_withdraw(SERVICE, "player:bob:CHIP")
    for principal, account_id in [
        (ALICE, "player:bob:CHIP"),
        (ALICE, "table:alice:CHIP"),
        (ADMIN, "player:root:CHIP"),
    ]:
        with pytest.raises(PermissionDenied):
            authz.may_withdraw(principal, account_id)


def test_players_read_and_open_only_their_own_player_accounts() -> None:
    for check in (authz.may_read, authz.may_open):
        check(ALICE, "player:alice:GOLD")
        check(ADMIN, "player:bob:CHIP")
        check(SERVICE, "house:rake:CHIP")
        for principal, account_id in [
            (ALICE, "player:bob:CHIP"),
            (ALICE, "house:alice:CHIP"),
            (CONSOLE, "player:desk:CHIP"),
        ]:
            with pytest.raises(PermissionDenied):
                check(principal, account_id)


def test_admins_and_services_audit_players_do_not() -> None:
    authz.may_audit(ADMIN)
    authz.may_audit(SERVICE)
    with pytest.raises(PermissionDenied):
        authz.may_audit(ALICE)
