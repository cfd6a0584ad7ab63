"""A sharded ledger and the two-phase protocol that moves chips between shards.

The ledger may be split into `shards` shards, each its own aggregate (its own journal,
projection and idempotency records under its own hash tag, so one Redis Cluster slot each).
Every account lives in exactly one shard (`shard_of`). A command whose effects stay in one
shard commits there atomically, as an unsharded ledger does. A command that moves chips from
accounts of one shard (its *home*) to accounts of others is split (`plan`) into:

1. **debit** (home shard, atomic with the idempotency record): the home legs, plus one credit
   of the chips leaving to the other shards into the home's transit account, plus a pending
   record (`PendingTransfer`) naming the whole movement;
2. **credit** (each destination shard, once, keyed by `credit_key`): a debit of that shard's
   transit account and the credits of its accounts (`credit_events`); a destination that
   cannot take them (a balance would leave the limit) records a refusal under the same key
   instead, so the step has exactly one outcome whoever runs it and however often;
3. **finish** (home shard, only while the record is pending): every destination applied ->
   `done`; some refused -> the refused chips go back from the home's transit account to the
   accounts they left (`resolution`) and the record is `compensated`.

Each step is idempotent, so any process that finds a pending record (the one that wrote it,
a replay of the same key, or a recovery sweep in any ledger replica) may drive it, and two
may drive it at once. Every shard's entries balance with its transit account, so each shard
sums to zero on its own; across shards the transit accounts together hold exactly the chips
in flight (`audit_transit`).

Pure: no I/O, no clock. The shell (application.py, redis_store.py) runs the steps.
"""

from __future__ import annotations

import enum
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from services.shared.errors import InvalidArgument

from .accounts import Account, AccountKind
from .entries import Leg, Legs, Metadata, Side, credit, debit, net_outflow
from .events import (
    AccountOpened,
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
    ReservationVoided,
)
from .state import LedgerState

_TRANSIT_PREFIX = f"{AccountKind.TRANSIT.value}:shard-"


def shard_of(account_id: str, shards: int) -> int:
    """The shard that holds `account_id`: a transit account its own, any other a CRC-32 of
    its id (stable across processes and versions, unlike Python's `hash`)."""
    if shards == 1:
        return 0
    if account_id.startswith(_TRANSIT_PREFIX):
        return int(account_id[len(_TRANSIT_PREFIX) :].split(":")[0])
    return zlib.crc32(account_id.encode()) % shards


def key_shard(key: str, shards: int) -> int:
    """The shard that holds the claim of an idempotency key (and so locates its command)."""
    return 0 if shards == 1 else zlib.crc32(key.encode()) % shards


def transit_account(shard: int, currency: str) -> Account:
    return Account(AccountKind.TRANSIT, f"shard-{shard}", currency)


def credit_key(transfer_id: str, shard: int) -> str:
    """The idempotency key of a transfer's credit step in `shard` (its entry id too)."""
    return f"{transfer_id}/credit/{shard}"


def refund_key(transfer_id: str) -> str:
    return f"{transfer_id}/refund"


class TransferStatus(enum.StrEnum):
    PENDING = "pending"
    DONE = "done"
    COMPENSATED = "compensated"


class CreditOutcome(enum.StrEnum):
    APPLIED = "applied"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class PendingTransfer:
    """The pending record, kept in the home shard: the whole movement as the caller meant it.

    `transfer_id` is the command's entry id (its idempotency key). `legs` are the logical
    legs (every account of every shard); `home` the shard whose accounts were debited.
    """

    transfer_id: str
    home: int
    legs: Legs
    metadata: Metadata

    def shard_legs(self, shards: int) -> dict[int, Legs]:
        """The legs of each shard other than home, in leg order."""
        grouped: dict[int, list[Leg]] = {}
        for leg in self.legs:
            shard = shard_of(leg.account_id, shards)
            if shard != self.home:
                grouped.setdefault(shard, []).append(leg)
        return {shard: tuple(legs) for shard, legs in sorted(grouped.items())}

    def destinations(self, shards: int) -> dict[int, int]:
        """Chips each destination shard receives (net), by shard."""
        return {
            shard: sum(leg.delta for leg in legs) for shard, legs in self.shard_legs(shards).items()
        }

    @property
    def currency(self) -> str:
        return self.legs[0].currency


@dataclass(frozen=True, slots=True)
class Plan:
    """How one decided command commits: `events` in shard `home` atomically, then (when
    `pending` is set) the credit steps and the finish of that transfer."""

    home: int
    events: tuple[Event, ...]
    pending: PendingTransfer | None = None


def _outflow_shards(legs: Legs, shards: int) -> set[int]:
    return {shard_of(account_id, shards) for account_id in net_outflow(legs)}


def home_of_legs(legs: Legs, shards: int) -> int:
    """The shard a movement of these legs is decided in: the one its debits are in.

    InvalidArgument when the debited accounts live in several shards: no single atomic step
    could check and take all their chips.
    """
    homes = _outflow_shards(legs, shards)
    if len(homes) > 1:
        raise InvalidArgument(
            "the accounts these legs debit live in different ledger shards, so no one step"
            " can take their chips atomically; split it into one entry per debited account"
        )
    if homes:
        return homes.pop()
    return shard_of(legs[0].account_id, shards) if legs else 0


def _main_legs(event: Event, state: LedgerState) -> Legs:
    match event:
        case EntryPosted(legs=legs) | ReservationOpened(legs=legs) | ReservationPosted(legs=legs):
            return legs
        case ReservationVoided(reservation_id=rid):
            return state.reservations[rid].legs
        case AccountOpened():
            return ()


def plan(events: Sequence[Event], decided_on: LedgerState, shards: int) -> Plan:
    """Split the events one command decided into the home shard's events and, when chips
    leave the home shard, the transfer that carries them to the others.

    A reservation's opening and voiding only hold and release chips of its debited accounts,
    so they stay in its home shard whatever shards its credits name; its posting moves chips
    and may cross. `decided_on` must hold the transit account of the home shard if it exists.
    """
    if shards == 1 or not events:
        return Plan(0, tuple(events))
    main = events[-1]
    legs = _main_legs(main, decided_on)
    if isinstance(main, AccountOpened):
        return Plan(shard_of(main.account.id, shards), tuple(events))
    home = home_of_legs(legs, shards)
    for event in events[:-1]:
        # Only the external account is opened beside a movement (a first deposit), and it is
        # the debited side of a deposit, or a credit of a withdrawal (then opened in its shard
        # by the credit step).
        assert isinstance(event, AccountOpened)
    crossing = isinstance(main, EntryPosted | ReservationPosted) and any(
        shard_of(leg.account_id, shards) != home for leg in legs
    )
    if not crossing:
        return Plan(home, tuple(events))
    assert isinstance(main, EntryPosted | ReservationPosted)
    home_legs = tuple(leg for leg in legs if shard_of(leg.account_id, shards) == home)
    leaving = sum(-leg.delta for leg in home_legs)
    currency = legs[0].currency
    transit = transit_account(home, currency)
    opened: list[Event] = [
        event
        for event in events[:-1]
        if isinstance(event, AccountOpened) and shard_of(event.account.id, shards) == home
    ]
    if transit.id not in decided_on.accounts:
        opened.append(AccountOpened(transit))
    local_legs = (*home_legs, credit(transit.id, currency, leaving))
    rewritten: Event
    if isinstance(main, EntryPosted):
        rewritten = EntryPosted(main.entry_id, local_legs, main.metadata)
        transfer_id = main.entry_id
    else:
        rewritten = ReservationPosted(main.reservation_id, main.entry_id, local_legs, main.metadata)
        transfer_id = main.entry_id
    pending = PendingTransfer(transfer_id, home, legs, main.metadata)
    return Plan(home, (*opened, rewritten), pending)


def credit_events(
    pending: PendingTransfer, shard: int, dest: LedgerState, shards: int
) -> list[Event]:
    """The credit step of `pending` in destination `shard`, decided on `dest` (that shard's
    state with its transit account and the accounts it credits): open what is missing
    there (its transit account; the external account of a first withdrawal), debit the
    transit account, post the shard's legs."""
    legs = pending.shard_legs(shards)[shard]
    arriving = sum(leg.delta for leg in legs)
    transit = transit_account(shard, pending.currency)
    opened: list[Event] = []
    for account in [transit] + [_account_of(leg.account_id) for leg in legs]:
        missing = account.id not in dest.accounts and account.may_go_negative
        if missing and AccountOpened(account) not in opened:
            opened.append(AccountOpened(account))
    entry = EntryPosted(
        credit_key(pending.transfer_id, shard),
        (debit(transit.id, pending.currency, arriving), *legs),
        pending.metadata,
    )
    return [*opened, entry]


def _account_of(account_id: str) -> Account:
    kind, name, currency = account_id.split(":")
    return Account(AccountKind(kind), name, currency)


@dataclass(frozen=True, slots=True)
class Resolution:
    status: TransferStatus
    # The refund entry (home shard) when some destination refused; else none.
    events: tuple[Event, ...] = ()
    # The logical legs that did not move (refused destinations' legs).
    refused: Legs = ()


def resolution(
    pending: PendingTransfer, outcomes: Mapping[int, CreditOutcome], shards: int
) -> Resolution | None:
    """How `pending` finishes given its destinations' outcomes; None while one is unknown.

    Refused chips go back to the accounts that were debited, in the order of their legs and
    up to what each lost, so a refund never credits an account more than it paid in.
    """
    per_shard = pending.shard_legs(shards)
    if any(shard not in outcomes for shard in per_shard):
        return None
    refused_shards = [s for s in per_shard if outcomes[s] is CreditOutcome.REFUSED]
    if not refused_shards:
        return Resolution(TransferStatus.DONE)
    refused = tuple(leg for s in refused_shards for leg in per_shard[s])
    amount = sum(leg.delta for leg in refused)
    currency = pending.currency
    home_legs = [leg for leg in pending.legs if shard_of(leg.account_id, shards) == pending.home]
    back: list[Leg] = []
    remaining = amount
    for account_id, lost in net_outflow(home_legs).items():
        part = min(lost, remaining)
        if part > 0:
            back.append(credit(account_id, currency, part))
            remaining -= part
    assert remaining == 0, "a home shard always lost at least what it sent away"
    transit = transit_account(pending.home, currency)
    entry = EntryPosted(
        refund_key(pending.transfer_id),
        (debit(transit.id, currency, amount), *back),
        Metadata(pending.metadata.table_id, pending.metadata.hand_id, "refund"),
    )
    return Resolution(TransferStatus.COMPENSATED, (entry,), refused)


# -- audit across shards --------------------------------------------------------------------

_CREDIT_ID = re.compile(r"^(?P<id>.*)/credit/(?P<shard>\d+)$")


@dataclass(frozen=True, slots=True)
class TransitReport:
    # Chips sent and not yet arrived or refunded, per currency.
    in_flight: Mapping[str, int]
    # Sum of every transit account's balance, per currency (must equal in_flight).
    transit_total: Mapping[str, int]
    problems: tuple[str, ...]


def _transit_leg(legs: Legs, side: Side) -> Leg | None:
    for leg in legs:
        if leg.account_id.startswith(_TRANSIT_PREFIX) and leg.side is side:
            return leg
    return None


def audit_transit(
    journals: Mapping[int, Iterable[Event]],
    records: Mapping[str, tuple[PendingTransfer, TransferStatus]],
    shards: int,
) -> TransitReport:
    """Check every cross-shard transfer from the shards' journals and pending records.

    Per transfer: the home's transit account received what left its accounts (once); each
    destination's credit step arrived at most once, for exactly that shard's chips; a
    refund returned at most once, only what was refused; a finished record has nothing in
    flight. Over all: the transit accounts together hold exactly what is in flight.
    """
    problems: list[str] = []
    sent: dict[str, int] = {}
    arrived: dict[str, dict[int, int]] = {}
    refunded: dict[str, int] = {}
    transit_total: dict[str, int] = {}
    for shard, journal in sorted(journals.items()):
        for event in journal:
            if not isinstance(event, EntryPosted | ReservationPosted):
                continue
            for leg in event.legs:
                if leg.account_id.startswith(_TRANSIT_PREFIX):
                    if shard_of(leg.account_id, shards) != shard:
                        problems.append(f"shard {shard}: posts to {leg.account_id}")
                    transit_total[leg.currency] = transit_total.get(leg.currency, 0) + leg.delta
            entry_id = event.entry_id
            into = _transit_leg(event.legs, Side.CREDIT)
            out = _transit_leg(event.legs, Side.DEBIT)
            if into is not None:
                if entry_id in sent:
                    problems.append(f"transfer {entry_id}: debited twice")
                sent[entry_id] = into.amount
            elif out is not None and (match := _CREDIT_ID.match(entry_id)) is not None:
                tid, dest = match["id"], int(match["shard"])
                steps = arrived.setdefault(tid, {})
                if dest in steps:
                    problems.append(f"transfer {tid}: credited twice in shard {dest}")
                if dest != shard:
                    problems.append(f"transfer {tid}: shard {dest}'s credit in shard {shard}")
                steps[dest] = out.amount
            elif out is not None and entry_id.endswith("/refund"):
                tid = entry_id.removesuffix("/refund")
                if tid in refunded:
                    problems.append(f"transfer {tid}: refunded twice")
                refunded[tid] = out.amount
    in_flight: dict[str, int] = {}
    for tid in sorted(set(sent) | set(arrived) | set(refunded)):
        if tid not in records:
            problems.append(f"transfer {tid}: moves transit chips without a pending record")
            continue
        record, status = records[tid]
        expected = record.destinations(shards)
        steps = arrived.get(tid, {})
        if tid not in sent:
            problems.append(f"transfer {tid}: credited or refunded but never debited")
        elif sent[tid] != sum(expected.values()):
            problems.append(
                f"transfer {tid}: sent {sent[tid]}, its legs say {sum(expected.values())}"
            )
        for dest, amount in steps.items():
            if expected.get(dest) != amount:
                problems.append(
                    f"transfer {tid}: shard {dest} received {amount}, expected {expected.get(dest)}"
                )
        refused = sum(amount for dest, amount in expected.items() if dest not in steps)
        back = refunded.get(tid, 0)
        if tid in refunded and (status is not TransferStatus.COMPENSATED or back != refused):
            problems.append(f"transfer {tid}: refunded {back} ({status}), refused {refused}")
        left = sent.get(tid, 0) - sum(steps.values()) - back
        if status is not TransferStatus.PENDING and left != 0:
            problems.append(f"transfer {tid}: {status} with {left} chips still in flight")
        if left < 0:
            problems.append(f"transfer {tid}: {-left} more chips arrived than were sent")
        in_flight[record.currency] = in_flight.get(record.currency, 0) + left
    for tid, (record, status) in sorted(records.items()):
        if tid not in sent and record.destinations(shards):
            problems.append(f"transfer {tid}: pending record ({status}) without its debit")
    for currency in sorted(set(in_flight) | set(transit_total)):
        if in_flight.get(currency, 0) != transit_total.get(currency, 0):
            problems.append(
                f"{currency}: transit accounts hold {transit_total.get(currency, 0)},"
                f" transfers in flight {in_flight.get(currency, 0)}"
            )
    return TransitReport(
        in_flight=dict(sorted(in_flight.items())),
        transit_total=dict(sorted(transit_total.items())),
        problems=tuple(problems),
    )
