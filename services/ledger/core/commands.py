"""What callers ask the ledger to do. Each mutation carries the key that makes it idempotent;
the key also names what it creates (entry id, reservation id)."""

from __future__ import annotations

from dataclasses import dataclass

from .accounts import AccountKind
from .entries import NO_METADATA, Legs, Metadata


@dataclass(frozen=True, slots=True)
class OpenAccount:
    kind: AccountKind
    name: str
    currency: str


@dataclass(frozen=True, slots=True)
class Deposit:
    key: str
    account_id: str
    currency: str
    amount: int
    metadata: Metadata = NO_METADATA


@dataclass(frozen=True, slots=True)
class Withdraw:
    key: str
    account_id: str
    currency: str
    amount: int
    metadata: Metadata = NO_METADATA


@dataclass(frozen=True, slots=True)
class Transfer:
    key: str
    legs: Legs
    metadata: Metadata = NO_METADATA


@dataclass(frozen=True, slots=True)
class Reserve:
    key: str
    legs: Legs
    metadata: Metadata = NO_METADATA


@dataclass(frozen=True, slots=True)
class Post:
    key: str
    reservation_id: str
    # 0 posts everything reserved; otherwise a smaller amount of a two-leg reservation.
    amount: int = 0
    metadata: Metadata = NO_METADATA


@dataclass(frozen=True, slots=True)
class Void:
    key: str
    reservation_id: str
    reason: str = ""


Command = OpenAccount | Deposit | Withdraw | Transfer | Reserve | Post | Void
