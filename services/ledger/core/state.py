"""Ledger state and the pure fold `apply(state, event) -> state`.

`apply` never validates: `decide` did that before the event existed. The state may be
partial (only the accounts and reservations one command touches), which is how the
application decides without loading the whole ledger.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from .accounts import Account
from .entries import Legs, Metadata, net_outflow
from .events import (
    AccountOpened,
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
    ReservationVoided,
)


class ReservationStatus(enum.StrEnum):
    PENDING = "pending"
    POSTED = "posted"
    VOIDED = "voided"


@dataclass(frozen=True, slots=True)
class Reservation:
    id: str
    legs: Legs
    metadata: Metadata
    status: ReservationStatus = ReservationStatus.PENDING

    @property
    def holds(self) -> dict[str, int]:
        """Chips this reservation keeps unavailable in each account while it is pending."""
        return net_outflow(self.legs) if self.status is ReservationStatus.PENDING else {}


@dataclass(frozen=True, slots=True)
class LedgerState:
    accounts: Mapping[str, Account] = field(default_factory=dict)
    # Posted chips per account id (absent = 0).
    balances: Mapping[str, int] = field(default_factory=dict)
    # Chips held by pending reservations per account id (absent = 0).
    held: Mapping[str, int] = field(default_factory=dict)
    reservations: Mapping[str, Reservation] = field(default_factory=dict)

    def balance(self, account_id: str) -> int:
        return self.balances.get(account_id, 0)

    def held_in(self, account_id: str) -> int:
        return self.held.get(account_id, 0)

    def available(self, account_id: str) -> int:
        return self.balance(account_id) - self.held_in(account_id)


@dataclass(frozen=True, slots=True)
class Effect:
    """What one event does to one account's posted balance and held amount."""

    account_id: str
    balance_delta: int = 0
    held_delta: int = 0


def _posting(legs: Legs) -> list[Effect]:
    return [Effect(leg.account_id, balance_delta=leg.delta) for leg in legs]


def _holding(holds: Mapping[str, int], sign: int) -> list[Effect]:
    return [Effect(account_id, held_delta=sign * amount) for account_id, amount in holds.items()]


def effects(event: Event, reservations: Mapping[str, Reservation]) -> list[Effect]:
    """The balance and hold changes of `event`, given the reservations it may resolve."""
    match event:
        case AccountOpened():
            return []
        case EntryPosted(legs=legs):
            return _posting(legs)
        case ReservationOpened(legs=legs):
            return _holding(net_outflow(legs), +1)
        case ReservationPosted(reservation_id=rid, legs=legs):
            return _holding(reservations[rid].holds, -1) + _posting(legs)
        case ReservationVoided(reservation_id=rid):
            return _holding(reservations[rid].holds, -1)


def _resolve(reservation: Reservation, event: Event) -> Reservation:
    if isinstance(event, ReservationPosted):
        return replace(reservation, status=ReservationStatus.POSTED)
    return replace(reservation, status=ReservationStatus.VOIDED)


def apply(state: LedgerState, event: Event) -> LedgerState:
    """The state after `event`."""
    balances = dict(state.balances)
    held = dict(state.held)
    for effect in effects(event, state.reservations):
        if effect.balance_delta:
            balances[effect.account_id] = balances.get(effect.account_id, 0) + effect.balance_delta
        if effect.held_delta:
            held[effect.account_id] = held.get(effect.account_id, 0) + effect.held_delta
    accounts = state.accounts
    reservations = state.reservations
    match event:
        case AccountOpened(account=account):
            accounts = {**accounts, account.id: account}
        case ReservationOpened(reservation_id=rid, legs=legs, metadata=metadata):
            reservations = {**reservations, rid: Reservation(rid, legs, metadata)}
        case ReservationPosted(reservation_id=rid) | ReservationVoided(reservation_id=rid):
            reservations = {**reservations, rid: _resolve(reservations[rid], event)}
        case _:
            pass
    return LedgerState(accounts=accounts, balances=balances, held=held, reservations=reservations)


def apply_all(state: LedgerState, events: Iterable[Event]) -> LedgerState:
    for event in events:
        state = apply(state, event)
    return state
