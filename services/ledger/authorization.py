"""Who may do what in the ledger.

A player (or bot) account's id is ``player:<subject>:<currency>``: the name part is the
principal's subject, so "own account" is read off the id with no lookup (and a player never
learns whether somebody else's account exists). Service callers (the table orchestrator)
move chips; a player may only open and cash out of their own account and read their own
accounts; admins may read anything and audit.
"""

from __future__ import annotations

from services.ledger.core.accounts import AccountKind, parse_account_id
from services.shared.auth import Principal, Role
from services.shared.errors import PermissionDenied

_PLAYERS = (Role.PLAYER, Role.BOT)


def owns(principal: Principal, account_id: str) -> bool:
    account = parse_account_id(account_id)
    return account.kind is AccountKind.PLAYER and account.name == principal.subject


def _deny(principal: Principal, what: str) -> PermissionDenied:
    return PermissionDenied(f"{principal.role.value} '{principal.subject}' may not {what}")


def may_move_chips(principal: Principal, what: str) -> None:
    if principal.role is not Role.SERVICE:
        raise _deny(principal, f"{what}; only the platform's services move chips")


def may_withdraw(principal: Principal, account_id: str) -> None:
    if principal.role is Role.SERVICE:
        return
    if principal.role in _PLAYERS and owns(principal, account_id):
        return
    raise _deny(
        principal, f"withdraw from {account_id}; players cash out only of their own account"
    )


def may_open(principal: Principal, account_id: str) -> None:
    if principal.role in (Role.SERVICE, Role.ADMIN):
        return
    if principal.role in _PLAYERS and owns(principal, account_id):
        return
    raise _deny(principal, f"open {account_id}; players open only 'player:{principal.subject}:*'")


def may_read(principal: Principal, account_id: str) -> None:
    if principal.role in (Role.SERVICE, Role.ADMIN):
        return
    if principal.role in _PLAYERS and owns(principal, account_id):
        return
    raise _deny(principal, f"read {account_id}; players read only their own accounts")


def may_read_reservations(principal: Principal) -> None:
    # A reservation names several accounts; only the platform reads it whole.
    principal.require(Role.SERVICE, Role.ADMIN)


def may_audit(principal: Principal) -> None:
    principal.require(Role.ADMIN, Role.SERVICE)
