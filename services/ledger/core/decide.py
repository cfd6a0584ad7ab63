"""`decide(state, command) -> events`: every rule of the ledger, and nothing else.

A command that breaks a rule raises a domain error and produces no events, so nothing
changes on any error. The state only needs the accounts and reservations the command names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.shared.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    shown,
)

from .accounts import Account, AccountKind, external_account, make_account, parse_account_id
from .commands import Command, Deposit, OpenAccount, Post, Reserve, Transfer, Void, Withdraw
from .entries import MAX_CHIPS, Leg, Legs, Metadata, Side, credit, debit, net_outflow, validate_legs
from .events import (
    AccountOpened,
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
    ReservationVoided,
)
from .state import LedgerState, Reservation, ReservationStatus

MAX_KEY_LENGTH = 200


def validate_key(key: str) -> str:
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise InvalidArgument(
            f"idempotency_key must be 1-{MAX_KEY_LENGTH} printable characters, got {shown(key)};"
            " derive it from what the operation is, e.g. 't42/h17/settle'"
        )
    return key


def check_funds(state: LedgerState, outflows: Mapping[str, int]) -> None:
    """FailedPrecondition unless every non-external account can cover what it loses."""
    for account_id, amount in sorted(outflows.items()):
        account = state.accounts[account_id]
        available = state.available(account_id)
        if not account.may_go_negative and available < amount:
            raise FailedPrecondition(insufficient_funds_message(account, amount, state))


def check_limits(state: LedgerState, legs: Sequence[Leg]) -> None:
    """FailedPrecondition if posting `legs` would take a balance beyond MAX_CHIPS either way."""
    deltas: dict[str, int] = {}
    for leg in legs:
        deltas[leg.account_id] = deltas.get(leg.account_id, 0) + leg.delta
    for account_id, delta in sorted(deltas.items()):
        after = state.balance(account_id) + delta
        if abs(after) > MAX_CHIPS:
            raise FailedPrecondition(
                f"{account_id} would hold {after} chips; balances are limited to ±{MAX_CHIPS}"
            )


def insufficient_funds_message(account: Account, needed: int, state: LedgerState) -> str:
    return funds_message(
        account.id,
        account.currency,
        needed,
        state.balance(account.id),
        state.held_in(account.id),
    )


def funds_message(account_id: str, currency: str, needed: int, balance: int, held: int) -> str:
    return (
        f"insufficient funds in {account_id}: available {balance - held} {currency}"
        f" (balance {balance}, held {held}), needs {needed}"
    )


def refuse_transit(account_id: str) -> None:
    """Transit accounts are the ledger's own bookkeeping between shards: no caller moves
    chips into or out of one."""
    if account_id.startswith(f"{AccountKind.TRANSIT.value}:"):
        raise InvalidArgument(
            f"{account_id} is a ledger transit account; only the ledger posts to it"
        )


def _entry_legs(state: LedgerState, legs: Sequence[Leg]) -> Legs:
    for leg in legs:
        refuse_transit(leg.account_id)
    validate_legs(legs, state.accounts)
    check_funds(state, net_outflow(legs))
    check_limits(state, legs)
    return tuple(legs)


def _external_side(
    state: LedgerState, account_id: str, currency: str, amount: int, side: Side
) -> tuple[list[Event], Legs]:
    """Legs between `account_id` and the external account; opens the latter when missing."""
    refuse_transit(account_id)
    account = parse_account_id(account_id)
    if account.kind is AccountKind.EXTERNAL:
        raise InvalidArgument(
            f"{account_id} is the external account; deposit into or withdraw from a player,"
            " table or house account"
        )
    world = external_account(account.currency)
    opened: list[Event] = []
    if world.id not in state.accounts and account_id in state.accounts:
        opened.append(AccountOpened(world))
    accounts = {**state.accounts, world.id: world}
    if side is Side.CREDIT:  # deposit: the world pays the account
        legs: Legs = (debit(world.id, currency, amount), credit(account_id, currency, amount))
    else:
        legs = (debit(account_id, currency, amount), credit(world.id, currency, amount))
    validate_legs(legs, accounts)
    check_limits(state, legs)
    return opened, legs


def _reservation(state: LedgerState, reservation_id: str) -> Reservation:
    reservation = state.reservations.get(reservation_id)
    if reservation is None:
        raise NotFound(f"reservation {shown(reservation_id)} does not exist")
    if reservation.status is not ReservationStatus.PENDING:
        raise FailedPrecondition(
            f"reservation {shown(reservation_id)} was already {reservation.status.value};"
            " a reservation is posted or voided at most once"
        )
    return reservation


def _posted_legs(reservation: Reservation, amount: int) -> Legs:
    if amount == 0:
        return reservation.legs
    if amount < 0:
        raise InvalidArgument(f"post amount must be positive (or 0 for all), got {amount}")
    total = reservation.legs[0].amount
    if len(reservation.legs) != 2:
        raise InvalidArgument(
            f"reservation {shown(reservation.id)} has {len(reservation.legs)} legs; "
            "a partial amount"
            " can only be posted for a reservation with one debit and one credit leg"
        )
    if amount > total:
        raise InvalidArgument(
            f"post amount must be between 1 and the reserved {total}"
            f" {reservation.legs[0].currency}, got {amount}"
        )
    return tuple(Leg(leg.account_id, leg.side, leg.currency, amount) for leg in reservation.legs)


def decide(state: LedgerState, command: Command) -> list[Event]:
    """The events `command` produces in `state`, or a domain error saying what is wrong."""
    match command:
        case OpenAccount(kind=kind, name=name, currency=currency):
            account = make_account(kind, name, currency)
            return [] if account.id in state.accounts else [AccountOpened(account)]
        case Deposit(key=key, account_id=account_id, currency=currency, amount=amount):
            validate_key(key)
            opened, legs = _external_side(state, account_id, currency, amount, Side.CREDIT)
            return [*opened, EntryPosted(key, legs, command.metadata)]
        case Withdraw(key=key, account_id=account_id, currency=currency, amount=amount):
            validate_key(key)
            opened, legs = _external_side(state, account_id, currency, amount, Side.DEBIT)
            check_funds(state, net_outflow(legs))
            return [*opened, EntryPosted(key, legs, command.metadata)]
        case Transfer(key=key, legs=legs, metadata=metadata):
            validate_key(key)
            return [EntryPosted(key, _entry_legs(state, legs), metadata)]
        case Reserve(key=key, legs=legs, metadata=metadata):
            validate_key(key)
            existing = state.reservations.get(key)
            if existing is not None:
                raise AlreadyExists(
                    f"reservation {shown(key)} exists already ({existing.status.value})"
                )
            return [ReservationOpened(key, _entry_legs(state, legs), metadata)]
        case Post(key=key, reservation_id=rid, amount=amount, metadata=metadata):
            validate_key(key)
            reservation = _reservation(state, rid)
            legs = _posted_legs(reservation, amount)
            check_limits(state, legs)
            if metadata == Metadata():
                metadata = reservation.metadata
            return [ReservationPosted(rid, key, legs, metadata)]
        case Void(key=key, reservation_id=rid, reason=reason):
            validate_key(key)
            _reservation(state, rid)
            return [ReservationVoided(rid, reason)]
