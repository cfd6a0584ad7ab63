"""Who may do what in the ledger.

A player (or bot) account's id is ``player:<subject>:<currency>``: the name part is the
principal's subject, so "own account" is read off the id with no lookup (and a player never
learns whether somebody else's account exists). Service callers (the table orchestrator)
move chips; a player may only open and cash out of their own account and read their own
accounts (and, with the development cashier on, deposit into it); admins may read anything
and audit.

Idempotency keys have owners too. A key names one effect forever, so whoever uses a key first
decides what it means: a key that another principal could use first is a key that principal
can squat. A player's (or bot's) keys therefore live in their own namespace, `player:<subject>/`,
and every other key is the platform's: the services derive theirs from public data (a table's
id and version, a hand number, a bot's seat), which a player must never be able to pre-empt.
Table ids, hand numbers and service names never start with `player:`, so the two sets are
disjoint by construction and the ledger refuses a key from outside the caller's namespace.
"""

from __future__ import annotations

from services.ledger.core.accounts import AccountKind, parse_account_id
from services.shared.auth import Principal, Role
from services.shared.errors import PermissionDenied, shown

_PLAYERS = (Role.PLAYER, Role.BOT)
# Every player's key namespace starts with this; the platform's keys never do.
PLAYER_KEYS = "player:"


def owns(principal: Principal, account_id: str) -> bool:
    account = parse_account_id(account_id)
    return account.kind is AccountKind.PLAYER and account.name == principal.subject


def _deny(principal: Principal, what: str) -> PermissionDenied:
    return PermissionDenied(f"{principal.role.value} '{principal.subject}' may not {what}")


def key_namespace(principal: Principal) -> str:
    """The prefix every idempotency key of `principal` must start with ("" = the platform's:
    any key not in a player's namespace)."""
    if principal.role in _PLAYERS:
        return f"{PLAYER_KEYS}{principal.subject}/"
    return ""


def may_use_key(principal: Principal, key: str) -> None:
    """PermissionDenied unless `key` lies in the caller's own key namespace."""
    namespace = key_namespace(principal)
    if namespace:
        if not key.startswith(namespace):
            raise _deny(
                principal,
                f"use idempotency key {shown(key)}: a {principal.role.value}'s keys start with "
                f"{namespace!r} (every other key is the platform's)",
            )
    elif key.startswith(PLAYER_KEYS):
        raise _deny(
            principal,
            f"use idempotency key {shown(key)}: keys starting with {PLAYER_KEYS!r} belong to "
            "players (the platform's keys never start with it)",
        )


def may_move_chips(principal: Principal, what: str) -> None:
    if principal.role is not Role.SERVICE:
        raise _deny(principal, f"{what}; only the platform's services move chips")


def may_deposit(principal: Principal, account_id: str, amount: int, cashier_limit: int) -> None:
    """Services deposit; with the development cashier on (`cashier_limit` > 0, `croupier run`)
    a player or bot may also deposit up to that many chips at a time into their own account."""
    if principal.role is Role.SERVICE:
        return
    what = f"deposit into {account_id}"
    if cashier_limit <= 0 or principal.role not in _PLAYERS or not owns(principal, account_id):
        raise _deny(principal, f"{what}; only the platform's services move chips")
    if amount > cashier_limit:
        raise _deny(
            principal,
            f"deposit {amount} chips; the development cashier pays at most {cashier_limit}"
            " at a time",
        )


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
