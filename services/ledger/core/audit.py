"""Audit: replay a journal from nothing and compare it with a live projection.

Checks that the replayed balances and holds equal the projection's, that every currency sums
to zero, that no account other than external ever went negative (or below its holds), that
every entry balances, and that every reservation was opened exactly once and resolved at
most once, after it was opened.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .accounts import Account
from .entries import Legs, Side
from .events import (
    AccountOpened,
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
    ReservationVoided,
)
from .state import Reservation, ReservationStatus, effects


@dataclass(frozen=True, slots=True)
class Projection:
    """The live view being audited (what the store serves to GetBalance)."""

    accounts: Mapping[str, Account]
    balances: Mapping[str, int]
    held: Mapping[str, int]
    reservation_status: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AuditReport:
    events: int
    accounts: int
    open_reservations: int
    totals: Mapping[str, int]
    differences: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return not self.differences


def _unbalanced(legs: Legs) -> bool:
    debits = sum(leg.amount for leg in legs if leg.side is Side.DEBIT)
    credits = sum(leg.amount for leg in legs if leg.side is Side.CREDIT)
    return debits != credits or any(leg.amount <= 0 for leg in legs)


class _Replay:
    """A mutable fold used only inside `audit`: the same `effects` as `apply`, in O(1) each."""

    def __init__(self) -> None:
        self.accounts: dict[str, Account] = {}
        self.balances: dict[str, int] = {}
        self.held: dict[str, int] = {}
        self.reservations: dict[str, Reservation] = {}
        self.problems: list[str] = []

    def step(self, position: int, event: Event) -> None:
        where = f"event {position}"
        match event:
            case AccountOpened(account=account):
                if account.id in self.accounts:
                    self.problems.append(f"{where}: account {account.id} opened twice")
                self.accounts[account.id] = account
                return
            case EntryPosted(legs=legs) | ReservationOpened(legs=legs):
                if _unbalanced(legs):
                    self.problems.append(f"{where}: entry legs do not balance")
            case ReservationPosted(reservation_id=rid) | ReservationVoided(reservation_id=rid):
                reservation = self.reservations.get(rid)
                if reservation is None:
                    self.problems.append(f"{where}: reservation {rid} resolved but never opened")
                    return
                if reservation.status is not ReservationStatus.PENDING:
                    self.problems.append(
                        f"{where}: reservation {rid} resolved again after {reservation.status}"
                    )
                    return
        if isinstance(event, ReservationOpened) and event.reservation_id in self.reservations:
            self.problems.append(f"{where}: reservation {event.reservation_id} opened twice")
            return
        for effect in effects(event, self.reservations):
            if effect.account_id not in self.accounts:
                self.problems.append(f"{where}: moves chips of unopened {effect.account_id}")
            self.balances[effect.account_id] = (
                self.balances.get(effect.account_id, 0) + effect.balance_delta
            )
            self.held[effect.account_id] = self.held.get(effect.account_id, 0) + effect.held_delta
        self._track_reservation(event)
        self._check_never_overdrawn(where, event)

    def _track_reservation(self, event: Event) -> None:
        match event:
            case ReservationOpened(reservation_id=rid, legs=legs, metadata=metadata):
                self.reservations[rid] = Reservation(rid, legs, metadata)
            case ReservationPosted(reservation_id=rid):
                old = self.reservations[rid]
                self.reservations[rid] = Reservation(
                    rid, old.legs, old.metadata, ReservationStatus.POSTED
                )
            case ReservationVoided(reservation_id=rid):
                old = self.reservations[rid]
                self.reservations[rid] = Reservation(
                    rid, old.legs, old.metadata, ReservationStatus.VOIDED
                )
            case _:
                pass

    def _check_never_overdrawn(self, where: str, event: Event) -> None:
        touched = {leg.account_id for leg in getattr(event, "legs", ())}
        for account_id in sorted(touched):
            account = self.accounts.get(account_id)
            if account is None or account.may_go_negative:
                continue
            balance = self.balances.get(account_id, 0)
            held = self.held.get(account_id, 0)
            if balance < 0 or held < 0 or balance < held:
                self.problems.append(
                    f"{where}: {account_id} overdrawn (balance {balance}, held {held})"
                )


def _compare(replay: _Replay, projection: Projection) -> list[str]:
    problems: list[str] = []
    for account_id in sorted(set(replay.accounts) | set(projection.accounts)):
        if account_id not in projection.accounts:
            problems.append(f"{account_id}: in the journal but missing from the projection")
            continue
        if account_id not in replay.accounts:
            problems.append(f"{account_id}: in the projection but never opened in the journal")
            continue
        for what, journal, live in (
            ("balance", replay.balances, projection.balances),
            ("held", replay.held, projection.held),
        ):
            expected, actual = journal.get(account_id, 0), live.get(account_id, 0)
            if expected != actual:
                problems.append(
                    f"{account_id}: journal says {what} {expected}, projection {actual}"
                )
    for rid in sorted(set(replay.reservations) | set(projection.reservation_status)):
        known = replay.reservations.get(rid)
        expected_status = known.status.value if known is not None else "absent"
        actual_status = projection.reservation_status.get(rid, "absent")
        if expected_status != actual_status:
            problems.append(
                f"reservation {rid}: journal says {expected_status}, projection {actual_status}"
            )
    return problems


def audit(journal: Iterable[Event], projection: Projection) -> AuditReport:
    """Replay `journal` and report every way it disagrees with `projection` or the rules."""
    replay = _Replay()
    count = 0
    for count, event in enumerate(journal, start=1):
        replay.step(count, event)
    problems = replay.problems + _compare(replay, projection)
    totals: dict[str, int] = {}
    for account_id, account in replay.accounts.items():
        totals[account.currency] = totals.get(account.currency, 0) + replay.balances.get(
            account_id, 0
        )
    problems += [
        f"{currency}: balances sum to {total}, not 0"
        for currency, total in sorted(totals.items())
        if total != 0
    ]
    expected_held: dict[str, int] = {}
    for reservation in replay.reservations.values():
        for account_id, amount in reservation.holds.items():
            expected_held[account_id] = expected_held.get(account_id, 0) + amount
    for account_id in sorted(set(expected_held) | set(replay.held)):
        if expected_held.get(account_id, 0) != replay.held.get(account_id, 0):
            problems.append(
                f"{account_id}: holds {replay.held.get(account_id, 0)} but pending reservations"
                f" hold {expected_held.get(account_id, 0)}"
            )
    pending = sum(1 for r in replay.reservations.values() if r.status is ReservationStatus.PENDING)
    return AuditReport(
        events=count,
        accounts=len(replay.accounts),
        open_reservations=pending,
        totals=dict(sorted(totals.items())),
        differences=tuple(problems),
    )
