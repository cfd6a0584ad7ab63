"""What happened in the ledger. The journal is an ordered list of these; everything else
(balances, holds, reservation states) is derived from it by `apply`."""

from __future__ import annotations

from dataclasses import dataclass

from .accounts import Account
from .entries import Legs, Metadata


@dataclass(frozen=True, slots=True)
class AccountOpened:
    account: Account


@dataclass(frozen=True, slots=True)
class EntryPosted:
    entry_id: str
    legs: Legs
    metadata: Metadata


@dataclass(frozen=True, slots=True)
class ReservationOpened:
    reservation_id: str
    legs: Legs
    metadata: Metadata


@dataclass(frozen=True, slots=True)
class ReservationPosted:
    reservation_id: str
    entry_id: str
    # What actually moved: the reserved legs, or a smaller amount of a two-leg reservation.
    legs: Legs
    metadata: Metadata


@dataclass(frozen=True, slots=True)
class ReservationVoided:
    reservation_id: str
    reason: str


Event = AccountOpened | EntryPosted | ReservationOpened | ReservationPosted | ReservationVoided
