"""Accounts: who can hold chips, and how account ids are spelled.

An account id is ``<kind>:<name>:<currency>``. The id alone says which kind of account it
is, which currency it holds and, for a player account, which principal owns it (the name is
the player's subject), so authorization needs no lookup.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from services.shared.errors import InvalidArgument, shown

_NAME = re.compile(r"^[A-Za-z0-9._@-]{1,64}$")
_CURRENCY = re.compile(r"^[A-Z][A-Z0-9_]{0,15}$")

#: The one external account of each currency that deposits and withdrawals post against.
EXTERNAL_NAME = "world"


class AccountKind(enum.StrEnum):
    PLAYER = "player"
    TABLE = "table"
    HOUSE = "house"
    # The world outside croupier: may go negative.
    EXTERNAL = "external"
    # One per ledger shard and currency: chips on their way to or from another shard
    # (core/shards.py). Only the ledger itself posts to it; it may go negative.
    TRANSIT = "transit"


@dataclass(frozen=True, slots=True)
class Account:
    kind: AccountKind
    name: str
    currency: str

    @property
    def id(self) -> str:
        return f"{self.kind.value}:{self.name}:{self.currency}"

    @property
    def may_go_negative(self) -> bool:
        return self.kind in (AccountKind.EXTERNAL, AccountKind.TRANSIT)


def validate_currency(currency: str) -> str:
    if not _CURRENCY.match(currency):
        raise InvalidArgument(
            f"currency {shown(currency)} is not valid: use 1-16 upper-case letters, digits or '_'"
            " starting with a letter, e.g. 'CHIP'"
        )
    return currency


def make_account(kind: AccountKind, name: str, currency: str) -> Account:
    """An account with a validated name and currency."""
    if not _NAME.match(name):
        raise InvalidArgument(
            f"account name {shown(name)} is not valid: use 1-64 letters, digits or '._@-' (no ':')"
        )
    return Account(kind=kind, name=name, currency=validate_currency(currency))


def parse_account_id(account_id: str) -> Account:
    """The account an id names (it may or may not exist); InvalidArgument if malformed."""
    parts = account_id.split(":")
    if len(parts) != 3:
        raise InvalidArgument(
            f"account id {shown(account_id)} is not valid: expected '<kind>:<name>:<currency>'"
            " such as 'player:alice:CHIP'"
        )
    kind_text, name, currency = parts
    try:
        kind = AccountKind(kind_text)
    except ValueError:
        kinds = ", ".join(k.value for k in AccountKind)
        raise InvalidArgument(
            f"account id {shown(account_id)} has unknown kind {shown(kind_text)}; "
            f"use one of {kinds}"
        ) from None
    return make_account(kind, name, currency)


def external_account(currency: str) -> Account:
    return Account(kind=AccountKind.EXTERNAL, name=EXTERNAL_NAME, currency=currency)
