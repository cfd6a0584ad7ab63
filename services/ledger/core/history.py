"""What each journal event did to each account: the rows of an account's History."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from .entries import NO_METADATA, Metadata
from .events import (
    AccountOpened,
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
    ReservationVoided,
)
from .state import Reservation, effects


class MovementKind(enum.StrEnum):
    OPENED = "opened"
    POSTED = "posted"
    RESERVED = "reserved"
    RESERVATION_POSTED = "reservation_posted"
    RESERVATION_VOIDED = "reservation_voided"


@dataclass(frozen=True, slots=True)
class Movement:
    account_id: str
    kind: MovementKind
    # Entry id or reservation id.
    reference: str
    balance_delta: int
    held_delta: int
    metadata: Metadata


def _describe(
    event: Event, reservations: Mapping[str, Reservation]
) -> tuple[MovementKind, str, Metadata]:
    match event:
        case AccountOpened(account=account):
            return MovementKind.OPENED, account.id, NO_METADATA
        case EntryPosted(entry_id=entry_id, metadata=metadata):
            return MovementKind.POSTED, entry_id, metadata
        case ReservationOpened(reservation_id=rid, metadata=metadata):
            return MovementKind.RESERVED, rid, metadata
        case ReservationPosted(entry_id=entry_id, metadata=metadata):
            return MovementKind.RESERVATION_POSTED, entry_id, metadata
        case ReservationVoided(reservation_id=rid, reason=reason):
            original = reservations[rid].metadata
            return (
                MovementKind.RESERVATION_VOIDED,
                rid,
                Metadata(original.table_id, original.hand_id, reason or original.reason),
            )


def movements(event: Event, reservations: Mapping[str, Reservation]) -> list[Movement]:
    """One movement per account `event` touches, in first-touched order."""
    kind, reference, metadata = _describe(event, reservations)
    if isinstance(event, AccountOpened):
        return [Movement(event.account.id, kind, reference, 0, 0, metadata)]
    totals: dict[str, tuple[int, int]] = {}
    for effect in effects(event, reservations):
        balance, held = totals.get(effect.account_id, (0, 0))
        totals[effect.account_id] = (balance + effect.balance_delta, held + effect.held_delta)
    return [
        Movement(account_id, kind, reference, balance, held, metadata)
        for account_id, (balance, held) in totals.items()
    ]
