"""Translation between the pure core's dataclasses and the croupier.ledger.v1 messages.

The journal stores protobuf events (stable type name + schema version per entry), so the
journal stays readable by any protobuf client; the core never sees protobuf.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from google.protobuf.message import Message

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import events_pb2, ledger_pb2
from services.ledger.core.accounts import Account, AccountKind
from services.ledger.core.entries import Leg, Legs, Metadata, Side
from services.ledger.core.events import (
    AccountOpened,
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
    ReservationVoided,
)
from services.ledger.core.history import Movement, MovementKind
from services.shared.errors import InvalidArgument

SCHEMA_VERSION = 1

_KINDS = {
    AccountKind.PLAYER: ledger_pb2.ACCOUNT_KIND_PLAYER,
    AccountKind.TABLE: ledger_pb2.ACCOUNT_KIND_TABLE,
    AccountKind.HOUSE: ledger_pb2.ACCOUNT_KIND_HOUSE,
    AccountKind.EXTERNAL: ledger_pb2.ACCOUNT_KIND_EXTERNAL,
    AccountKind.TRANSIT: ledger_pb2.ACCOUNT_KIND_TRANSIT,
}
_KINDS_BACK = {value: key for key, value in _KINDS.items()}
# What a caller may open: a transit account is the ledger's own.
_OPENABLE = {value: key for key, value in _KINDS.items() if key is not AccountKind.TRANSIT}
_SIDES = {Side.DEBIT: ledger_pb2.LEG_SIDE_DEBIT, Side.CREDIT: ledger_pb2.LEG_SIDE_CREDIT}
_SIDES_BACK = {value: key for key, value in _SIDES.items()}
_MOVEMENTS = {
    MovementKind.OPENED: ledger_pb2.MOVEMENT_KIND_OPENED,
    MovementKind.POSTED: ledger_pb2.MOVEMENT_KIND_POSTED,
    MovementKind.RESERVED: ledger_pb2.MOVEMENT_KIND_RESERVED,
    MovementKind.RESERVATION_POSTED: ledger_pb2.MOVEMENT_KIND_RESERVATION_POSTED,
    MovementKind.RESERVATION_VOIDED: ledger_pb2.MOVEMENT_KIND_RESERVATION_VOIDED,
}


def account_kind_from_pb(kind: int) -> AccountKind:
    try:
        return _OPENABLE[kind]  # type: ignore[index]
    except KeyError:
        raise InvalidArgument(
            f"account kind must be PLAYER, TABLE, HOUSE or EXTERNAL, got {kind}"
        ) from None


def account_to_pb(account: Account) -> ledger_pb2.Account:
    return ledger_pb2.Account(
        id=account.id, kind=_KINDS[account.kind], name=account.name, currency=account.currency
    )


def account_from_pb(message: ledger_pb2.Account) -> Account:
    return Account(_KINDS_BACK[message.kind], message.name, message.currency)


def leg_from_pb(message: ledger_pb2.Leg, number: int) -> Leg:
    side = _SIDES_BACK.get(message.side)
    if side is None:
        raise InvalidArgument(f"leg {number} ({message.account_id}): side must be DEBIT or CREDIT")
    return Leg(message.account_id, side, message.amount.currency, message.amount.amount)


def legs_from_pb(messages: Iterable[ledger_pb2.Leg]) -> Legs:
    return tuple(leg_from_pb(m, n) for n, m in enumerate(messages, start=1))


def leg_to_pb(leg: Leg) -> ledger_pb2.Leg:
    return ledger_pb2.Leg(
        account_id=leg.account_id,
        side=_SIDES[leg.side],
        amount=chips_pb2.ChipAmount(currency=leg.currency, amount=leg.amount),
    )


def legs_to_pb(legs: Legs) -> list[ledger_pb2.Leg]:
    return [leg_to_pb(leg) for leg in legs]


def metadata_from_pb(message: ledger_pb2.EntryMetadata) -> Metadata:
    return Metadata(message.table_id, message.hand_id, message.reason)


def metadata_to_pb(metadata: Metadata) -> ledger_pb2.EntryMetadata:
    return ledger_pb2.EntryMetadata(
        table_id=metadata.table_id, hand_id=metadata.hand_id, reason=metadata.reason
    )


def event_to_pb(event: Event) -> Message:
    match event:
        case AccountOpened(account=account):
            return events_pb2.AccountOpened(account=account_to_pb(account))
        case EntryPosted(entry_id=entry_id, legs=legs, metadata=metadata):
            return events_pb2.EntryPosted(
                entry_id=entry_id, legs=legs_to_pb(legs), metadata=metadata_to_pb(metadata)
            )
        case ReservationOpened(reservation_id=rid, legs=legs, metadata=metadata):
            return events_pb2.ReservationOpened(
                reservation_id=rid, legs=legs_to_pb(legs), metadata=metadata_to_pb(metadata)
            )
        case ReservationPosted(reservation_id=rid, entry_id=entry_id, legs=legs, metadata=m):
            return events_pb2.ReservationPosted(
                reservation_id=rid,
                entry_id=entry_id,
                legs=legs_to_pb(legs),
                metadata=metadata_to_pb(m),
            )
        case ReservationVoided(reservation_id=rid, reason=reason):
            return events_pb2.ReservationVoided(reservation_id=rid, reason=reason)


def _stored_legs(messages: Iterable[ledger_pb2.Leg]) -> Legs:
    return tuple(
        Leg(m.account_id, _SIDES_BACK[m.side], m.amount.currency, m.amount.amount) for m in messages
    )


def event_from_pb(message: Message) -> Event:
    match message:
        case events_pb2.AccountOpened():
            return AccountOpened(account_from_pb(message.account))
        case events_pb2.EntryPosted():
            return EntryPosted(
                message.entry_id, _stored_legs(message.legs), metadata_from_pb(message.metadata)
            )
        case events_pb2.ReservationOpened():
            return ReservationOpened(
                message.reservation_id,
                _stored_legs(message.legs),
                metadata_from_pb(message.metadata),
            )
        case events_pb2.ReservationPosted():
            return ReservationPosted(
                message.reservation_id,
                message.entry_id,
                _stored_legs(message.legs),
                metadata_from_pb(message.metadata),
            )
        case events_pb2.ReservationVoided():
            return ReservationVoided(message.reservation_id, message.reason)
    raise ValueError(f"not a ledger event: {type(message).__name__}")


EVENT_TYPES: Mapping[str, type[Message]] = {
    cls.DESCRIPTOR.full_name: cls
    for cls in (
        events_pb2.AccountOpened,
        events_pb2.EntryPosted,
        events_pb2.ReservationOpened,
        events_pb2.ReservationPosted,
        events_pb2.ReservationVoided,
    )
}


def encode_event(event: Event) -> tuple[str, bytes]:
    """(stable type name, serialized message) for the journal."""
    message = event_to_pb(event)
    return message.DESCRIPTOR.full_name, message.SerializeToString(deterministic=True)


def movement_to_pb(movement: Movement) -> ledger_pb2.Movement:
    return ledger_pb2.Movement(
        kind=_MOVEMENTS[movement.kind],
        reference=movement.reference,
        balance_delta=movement.balance_delta,
        held_delta=movement.held_delta,
        metadata=metadata_to_pb(movement.metadata),
    )
