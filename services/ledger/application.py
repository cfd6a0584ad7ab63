"""The ledger's use cases: authorize, load, decide, commit; replay stored responses.

Every mutation follows one path (`_mutate`): check the caller, load the accounts and
reservations the command names plus its idempotency record in one atomic read, let the pure
core decide, build the response from the events, and commit events + projection + response
in one atomic step whose preconditions (funds, reservation status) are re-checked by the
store. A replayed key returns the stored response bytes (a Reserve's with its reservation's
status now: `refresh`); a stale precondition reloads and decides again, so concurrent
duplicates execute once and nothing changes on any error.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from google.protobuf.message import Message

from croupier.ledger.v1 import ledger_pb2
from services.ledger import authorization, codec
from services.ledger.core.accounts import Account, AccountKind, make_account, parse_account_id
from services.ledger.core.audit import audit
from services.ledger.core.commands import (
    Command,
    Deposit,
    OpenAccount,
    Post,
    Reserve,
    Transfer,
    Void,
    Withdraw,
)
from services.ledger.core.decide import MAX_KEY_LENGTH, decide, funds_message, validate_key
from services.ledger.core.entries import MAX_CHIPS, Legs, net_outflow
from services.ledger.core.events import (
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
)
from services.ledger.core.shards import (
    CreditOutcome,
    PendingTransfer,
    TransferStatus,
    audit_transit,
    credit_events,
    credit_key,
    home_of_legs,
    key_shard,
    plan,
    resolution,
    shard_of,
    transit_account,
)
from services.ledger.core.state import LedgerState, ReservationStatus
from services.ledger.store import (
    Commit,
    Committed,
    Concurrency,
    InsufficientFunds,
    LedgerStore,
    Snapshot,
    Stale,
    StoredResponse,
)
from services.shared.auth import Principal
from services.shared.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
    shown,
)
from services.shared.lru_cache import LruCache

R = TypeVar("R", bound=Message)
ExternalResponse = TypeVar(
    "ExternalResponse", ledger_pb2.DepositResponse, ledger_pb2.WithdrawResponse
)

_RESPONSES: dict[type[Message], type[Message]] = {
    ledger_pb2.OpenAccountRequest: ledger_pb2.OpenAccountResponse,
    ledger_pb2.DepositRequest: ledger_pb2.DepositResponse,
    ledger_pb2.WithdrawRequest: ledger_pb2.WithdrawResponse,
    ledger_pb2.TransferRequest: ledger_pb2.TransferResponse,
    ledger_pb2.ReserveRequest: ledger_pb2.ReserveResponse,
    ledger_pb2.PostRequest: ledger_pb2.PostResponse,
    ledger_pb2.VoidRequest: ledger_pb2.VoidResponse,
}

REUSED_KEY = "idempotency key reused with different parameters"
# The idempotency key of a transfer's credit step in its destination shard. No caller key
# can collide with it: callers' keys are printable, this prefix is not.
STEP_PREFIX = "\x1fstep:"
_CURSOR = re.compile(r"^\d{1,20}-\d{1,20}$")


def _is_cursor(text: str) -> bool:
    """Whether `text` is a movement's cursor: a Redis stream id after 0-0 whose two parts
    fit 64 bits (Redis refuses anything else, which must not reach it)."""
    if not _CURSOR.match(text):
        return False
    millis, sequence = (int(part) for part in text.split("-"))
    return (millis, sequence) != (0, 0) and max(millis, sequence) < 2**64


def request_hash(method: str, request: Message) -> bytes:
    return hashlib.sha256(
        method.encode() + b"\0" + request.SerializeToString(deterministic=True)
    ).digest()


def _required_funds(state: LedgerState, events: Sequence[Event]) -> dict[str, int]:
    """What each non-external account must still have available when the commit lands."""
    needed: dict[str, int] = {}
    for event in events:
        if isinstance(event, EntryPosted | ReservationOpened):
            for account_id, amount in net_outflow(event.legs).items():
                if not parse_account_id(account_id).may_go_negative:
                    needed[account_id] = needed.get(account_id, 0) + amount
    return needed


def _record_bytes(pending: PendingTransfer) -> bytes:
    entry = EntryPosted(pending.transfer_id, pending.legs, pending.metadata)
    return codec.encode_event(entry)[1]


def _status_after(
    pending: PendingTransfer | None, result: Committed, store: LedgerStore, key: str
) -> str | None:
    """The status of the transfer a commit started (or its concurrent duplicate did)."""
    if not result.replayed:
        return None if pending is None else TransferStatus.PENDING.value
    loaded = store.load_transfer(key)
    return None if loaded is None else loaded[1].value


def _entry(events: Sequence[Event]) -> EntryPosted:
    entry = events[-1]
    assert isinstance(entry, EntryPosted)
    return entry


_RESERVATION_STATUS = {
    ReservationStatus.PENDING: ledger_pb2.RESERVATION_STATUS_PENDING,
    ReservationStatus.POSTED: ledger_pb2.RESERVATION_STATUS_POSTED,
    ReservationStatus.VOIDED: ledger_pb2.RESERVATION_STATUS_VOIDED,
}


class LedgerApplication:
    def __init__(
        self,
        store: LedgerStore | Sequence[LedgerStore],
        *,
        concurrency: Concurrency = Concurrency.CHECKED,
        max_attempts: int = 200,
        cashier_limit: int = 0,
    ) -> None:
        # One store per shard (docs/ledger.md "Shards"); one store: an unsharded ledger.
        self._stores: list[LedgerStore] = list(store) if isinstance(store, Sequence) else [store]
        self._store = self._stores[0]
        self._shards = len(self._stores)
        # The development cashier (LedgerSettings.cashier_limit): 0 = deposits are services'.
        self._cashier_limit = cashier_limit
        self._concurrency = concurrency
        self._max_attempts = max_attempts
        # Which accounts each reservation moves, to save a Redis read: Post and Void name only
        # a reservation, and its accounts are in its stored legs. Legs never change once opened
        # (ids are never reused), so a hint can be missing but not wrong for a live reservation;
        # `_resolve` still checks it against the legs it loads (a store rebuilt under a running
        # process) and reads again when they differ.
        self._reservation_accounts: LruCache[tuple[str, ...]] = LruCache(65536)

    # -- mutations ----------------------------------------------------------------------

    def open_account(
        self, request: ledger_pb2.OpenAccountRequest, principal: Principal
    ) -> ledger_pb2.OpenAccountResponse:
        kind = codec.account_kind_from_pb(request.kind)
        account = make_account(kind, request.name, request.currency)
        authorization.may_open(principal, account.id)
        command = OpenAccount(kind, request.name, request.currency)

        def respond(_: LedgerState, events: Sequence[Event]) -> ledger_pb2.OpenAccountResponse:
            return ledger_pb2.OpenAccountResponse(
                account=codec.account_to_pb(account), created=bool(events)
            )

        return self._mutate(
            "OpenAccount", request, command, [account.id], [], respond, home=self._shard(account.id)
        )

    def deposit(
        self, request: ledger_pb2.DepositRequest, principal: Principal
    ) -> ledger_pb2.DepositResponse:
        authorization.may_deposit(
            principal, request.account_id, request.amount.amount, self._cashier_limit
        )
        self._may_use_key(principal, request.idempotency_key)
        return self._move_external("Deposit", request, Deposit, ledger_pb2.DepositResponse)

    def withdraw(
        self, request: ledger_pb2.WithdrawRequest, principal: Principal
    ) -> ledger_pb2.WithdrawResponse:
        authorization.may_withdraw(principal, request.account_id)
        self._may_use_key(principal, request.idempotency_key)
        return self._move_external("Withdraw", request, Withdraw, ledger_pb2.WithdrawResponse)

    def _move_external(
        self,
        name: str,
        request: ledger_pb2.DepositRequest | ledger_pb2.WithdrawRequest,
        command_type: type[Deposit] | type[Withdraw],
        response_type: type[ExternalResponse],
    ) -> ExternalResponse:
        """Deposit and Withdraw: one account against the currency's external account."""
        account = parse_account_id(request.account_id)
        command = command_type(
            request.idempotency_key,
            request.account_id,
            request.amount.currency,
            request.amount.amount,
            codec.metadata_from_pb(request.metadata),
        )
        ids = [account.id, f"{AccountKind.EXTERNAL.value}:world:{account.currency}"]
        # A deposit debits the external account, a withdrawal the account: that is its home.
        home = self._shard(ids[1] if command_type is Deposit else ids[0])
        return self._mutate(
            name,
            request,
            command,
            ids,
            [],
            lambda _, events: response_type(
                entry_id=_entry(events).entry_id, legs=codec.legs_to_pb(_entry(events).legs)
            ),
            home=home,
        )

    def transfer(
        self, request: ledger_pb2.TransferRequest, principal: Principal
    ) -> ledger_pb2.TransferResponse:
        authorization.may_move_chips(principal, "transfer chips")
        self._may_use_key(principal, request.idempotency_key)
        legs = codec.legs_from_pb(request.legs)
        command = Transfer(request.idempotency_key, legs, codec.metadata_from_pb(request.metadata))
        return self._mutate(
            "Transfer",
            request,
            command,
            self._accounts_of(legs),
            [],
            lambda _, events: ledger_pb2.TransferResponse(
                entry_id=_entry(events).entry_id, legs=codec.legs_to_pb(_entry(events).legs)
            ),
            home=self._home(legs),
        )

    def reserve(
        self, request: ledger_pb2.ReserveRequest, principal: Principal
    ) -> ledger_pb2.ReserveResponse:
        authorization.may_move_chips(principal, "reserve chips")
        self._may_use_key(principal, request.idempotency_key)
        legs = codec.legs_from_pb(request.legs)
        command = Reserve(request.idempotency_key, legs, codec.metadata_from_pb(request.metadata))

        def respond(_: LedgerState, events: Sequence[Event]) -> ledger_pb2.ReserveResponse:
            opened = events[-1]
            assert isinstance(opened, ReservationOpened)
            return ledger_pb2.ReserveResponse(
                reservation_id=opened.reservation_id,
                legs=codec.legs_to_pb(opened.legs),
                status=ledger_pb2.RESERVATION_STATUS_PENDING,
            )

        def refresh(
            state: LedgerState, replayed: ledger_pb2.ReserveResponse
        ) -> ledger_pb2.ReserveResponse:
            # The stored bytes say PENDING (or, stored before the field existed, nothing):
            # a retry must learn that its hold was posted or voided since, or it would
            # rely on chips that are no longer held for it.
            # (The commit that stored the response opened the reservation, and reservations
            # are never removed: a missing one is a broken store, INTERNAL.)
            replayed.status = _RESERVATION_STATUS[state.reservations[command.key].status]
            return replayed

        accounts = self._accounts_of(legs)
        response = self._mutate(
            "Reserve",
            request,
            command,
            accounts,
            [command.key],
            respond,
            refresh=refresh,
            home=self._home(legs),
        )
        # The next Post or Void of it (usually the same table's) then reads in one round trip.
        self._reservation_accounts.put(response.reservation_id, tuple(accounts))
        return response

    def post(
        self, request: ledger_pb2.PostRequest, principal: Principal
    ) -> ledger_pb2.PostResponse:
        authorization.may_move_chips(principal, "post a reservation")
        self._may_use_key(principal, request.idempotency_key)
        command = Post(
            request.idempotency_key,
            request.reservation_id,
            request.amount,
            codec.metadata_from_pb(request.metadata),
        )

        def respond(_: LedgerState, events: Sequence[Event]) -> ledger_pb2.PostResponse:
            posted = events[-1]
            assert isinstance(posted, ReservationPosted)
            return ledger_pb2.PostResponse(
                entry_id=posted.entry_id,
                reservation_id=posted.reservation_id,
                legs=codec.legs_to_pb(posted.legs),
            )

        return self._resolve("Post", request, command, respond)

    def void(
        self, request: ledger_pb2.VoidRequest, principal: Principal
    ) -> ledger_pb2.VoidResponse:
        authorization.may_move_chips(principal, "void a reservation")
        self._may_use_key(principal, request.idempotency_key)
        command = Void(request.idempotency_key, request.reservation_id, request.reason)

        def respond(state: LedgerState, _: Sequence[Event]) -> ledger_pb2.VoidResponse:
            legs = state.reservations[command.reservation_id].legs
            return ledger_pb2.VoidResponse(
                reservation_id=command.reservation_id, released_legs=codec.legs_to_pb(legs)
            )

        return self._resolve("Void", request, command, respond)

    # -- reads --------------------------------------------------------------------------

    def get_balance(
        self, request: ledger_pb2.GetBalanceRequest, principal: Principal
    ) -> ledger_pb2.GetBalanceResponse:
        parse_account_id(request.account_id)
        authorization.may_read(principal, request.account_id)
        state = self._store_of(request.account_id).load([request.account_id], [], "").state
        account = self._existing(state, request.account_id)
        return ledger_pb2.GetBalanceResponse(
            account=codec.account_to_pb(account),
            balance=ledger_pb2.Balance(
                account_id=account.id,
                currency=account.currency,
                balance=state.balance(account.id),
                held=state.held_in(account.id),
                available=state.available(account.id),
            ),
        )

    def get_reservation(
        self, request: ledger_pb2.GetReservationRequest, principal: Principal
    ) -> ledger_pb2.GetReservationResponse:
        authorization.may_read_reservations(principal)
        rid = request.reservation_id
        if not rid or len(rid) > MAX_KEY_LENGTH or not rid.isprintable():
            # A reservation's id is its Reserve's key: the same rule as validate_key's.
            raise InvalidArgument(
                f"reservation_id must be 1-{MAX_KEY_LENGTH} printable characters (the "
                f"Reserve's key), got {shown(rid)}"
            )
        home = self._reservation_home(rid)
        reservation = (
            None
            if home is None
            else self._stores[home].load([], [rid], "").state.reservations.get(rid)
        )
        if reservation is None:
            raise NotFound(f"reservation {shown(rid)} does not exist")
        return ledger_pb2.GetReservationResponse(
            reservation_id=rid,
            status=_RESERVATION_STATUS[reservation.status],
            legs=codec.legs_to_pb(reservation.legs),
        )

    def history(
        self, request: ledger_pb2.HistoryRequest, principal: Principal
    ) -> ledger_pb2.HistoryResponse:
        parse_account_id(request.account_id)
        authorization.may_read(principal, request.account_id)
        limit = request.limit or 50
        if not 1 <= limit <= 500:
            raise InvalidArgument(f"limit must be between 1 and 500 (0 means 50), got {limit}")
        if request.before and not _is_cursor(request.before):
            raise InvalidArgument(
                f"before {shown(request.before)} is not a cursor; pass a next_cursor from History"
            )
        store = self._store_of(request.account_id)
        self._existing(store.load([request.account_id], [], "").state, request.account_id)
        page = store.history(request.account_id, limit, request.before)
        response = ledger_pb2.HistoryResponse(next_cursor=page.next_cursor)
        for cursor, data in page.movements:
            movement = response.movements.add()
            movement.ParseFromString(data)
            movement.cursor = cursor
            movement.recorded_at_ms = int(cursor.split("-")[0])
        return response

    def audit(
        self, request: ledger_pb2.AuditRequest, principal: Principal
    ) -> ledger_pb2.AuditResponse:
        authorization.may_audit(principal)
        if self._shards == 1:
            journal, projection = self._store.journal_and_projection()
            report = audit(journal, projection)
            return ledger_pb2.AuditResponse(
                clean=report.clean,
                events=report.events,
                accounts=report.accounts,
                open_reservations=report.open_reservations,
                totals=[
                    ledger_pb2.CurrencyTotal(currency=c, total=t) for c, t in report.totals.items()
                ],
                differences=list(report.differences),
            )
        return self._audit_shards()

    def _audit_shards(self) -> ledger_pb2.AuditResponse:
        """Each shard audited on its own (it sums to zero with its transit account), then
        the transfers between them (core/shards.py `audit_transit`). The transfer records
        are read before the journals: a record is written with its debit, so every debit a
        journal shows has its record, and a transfer finished after that read only shows
        as still in flight."""
        records: dict[str, tuple[PendingTransfer, TransferStatus]] = {}
        for store in self._stores:
            records |= store.transfers()
        journals: dict[int, list[Event]] = {}
        response = ledger_pb2.AuditResponse()
        totals: dict[str, int] = {}
        differences: list[str] = []
        for number, store in enumerate(self._stores):
            journal, projection = store.journal_and_projection()
            journals[number] = journal
            report = audit(journal, projection)
            response.events += report.events
            response.accounts += report.accounts
            response.open_reservations += report.open_reservations
            for currency, total in report.totals.items():
                totals[currency] = totals.get(currency, 0) + total
            differences += [f"shard {number}: {d}" for d in report.differences]
        transit = audit_transit(journals, records, self._shards)
        differences += transit.problems
        response.totals.extend(
            ledger_pb2.CurrencyTotal(currency=c, total=t) for c, t in sorted(totals.items())
        )
        response.in_flight.extend(
            ledger_pb2.CurrencyTotal(currency=c, total=t) for c, t in transit.in_flight.items()
        )
        response.differences.extend(differences)
        response.clean = not differences
        return response

    # -- shards -------------------------------------------------------------------------

    def _shard(self, account_id: str) -> int:
        return shard_of(account_id, self._shards)

    def _store_of(self, account_id: str) -> LedgerStore:
        return self._stores[self._shard(account_id)]

    def _home(self, legs: Legs) -> int:
        return home_of_legs(legs, self._shards) if self._shards > 1 else 0

    def _reservation_home(self, rid: str) -> int | None:
        """The shard holding reservation `rid`: its Reserve claimed its key there."""
        if self._shards == 1:
            return 0
        return self._stores[key_shard(rid, self._shards)].claimed(rid)

    def _claim(self, key: str, home: int, persistent: bool) -> None:
        """Bind `key` to its command's home shard before anything is written, so the key
        names one command in the whole ledger: the same key for a command of another home
        (so surely other parameters) is a reused key, not a second execution elsewhere."""
        claimed = self._stores[key_shard(key, self._shards)].claim(key, home, persistent)
        if claimed is not None and claimed != home:
            raise InvalidArgument(REUSED_KEY)

    def _load(
        self, account_ids: Sequence[str], reservation_ids: Sequence[str], key: str, home: int
    ) -> Snapshot:
        """One shard: its atomic load. Several: the home shard's (its accounts, the
        reservations, the key and the home's transit accounts), then each other shard's
        accounts, merged. Only the home's reads must be atomic with each other: its commit
        re-checks them; the other shards' accounts are only credited, and exist for ever."""
        if self._shards == 1:
            return self._store.load(account_ids, reservation_ids, key)
        by_shard: dict[int, list[str]] = {home: []}
        currencies: set[str] = set()
        for account_id in account_ids:
            by_shard.setdefault(self._shard(account_id), []).append(account_id)
            currencies.add(account_id.rsplit(":", 1)[-1])
        by_shard[home] += [transit_account(home, c).id for c in sorted(currencies)]
        first = self._stores[home].load(by_shard.pop(home), reservation_ids, key)
        if first.idempotent is not None:
            return first
        accounts = dict(first.state.accounts)
        balances = dict(first.state.balances)
        held = dict(first.state.held)
        for shard, ids in sorted(by_shard.items()):
            other = self._stores[shard].load(ids, [], "").state
            accounts |= other.accounts
            balances |= other.balances
            held |= other.held
        state = LedgerState(accounts, balances, held, first.state.reservations)
        return Snapshot(state, first.journal_version, None, first.transfer_status)

    def _settle(self, home: int, transfer_id: str, status: str | None) -> None:
        """The end of a command's cross-shard transfer: drive it if still pending; a
        transfer its destination refused (chips returned) fails the command."""
        if status is None:
            return
        if status == TransferStatus.PENDING.value:
            loaded = self._stores[home].load_transfer(transfer_id)
            if loaded is None:
                return
            final = self._drive(*loaded)
        else:
            final = TransferStatus(status)
        if final is TransferStatus.COMPENSATED:
            raise FailedPrecondition(
                f"the ledger shard of a credited account refused the chips of"
                f" {shown(transfer_id)} (a balance would leave ±{MAX_CHIPS}); they were"
                " returned to the accounts they came from"
            )

    def _drive(self, record: PendingTransfer, status: TransferStatus) -> TransferStatus:
        """Run a pending transfer's credit steps and its finish; any process may, any
        number of times, concurrently: each step is idempotent."""
        home = self._stores[record.home]
        tid = record.transfer_id
        for _ in range(self._max_attempts):
            if status is not TransferStatus.PENDING:
                return status
            outcomes = {
                shard: self._credit(record, shard) for shard in record.shard_legs(self._shards)
            }
            finished = resolution(record, outcomes, self._shards)
            assert finished is not None
            result = home.commit(
                Commit(
                    idempotency_key="",
                    request_hash=b"",
                    response=b"",
                    events=finished.events,
                    decided_on=LedgerState(),
                    transfer_check=(tid, TransferStatus.PENDING.value),
                    transfer_write=(tid, finished.status.value, b""),
                )
            )
            if isinstance(result, Committed):
                return finished.status
            # Somebody else finished it (or a refund met the limit): read it again.
            loaded = home.load_transfer(tid)
            status = TransferStatus.PENDING if loaded is None else loaded[1]
        raise Unavailable(
            f"transfer {shown(tid)} could not be finished; it stays pending and is"
            " finished by the next recovery sweep"
        )

    def _credit(self, record: PendingTransfer, shard: int) -> CreditOutcome:
        """A transfer's credit step in `shard`: applied or refused, once, whoever asks."""
        store = self._stores[shard]
        step = STEP_PREFIX + credit_key(record.transfer_id, shard)
        legs = record.shard_legs(self._shards)[shard]
        ids = list(
            dict.fromkeys(
                [transit_account(shard, record.currency).id, *(leg.account_id for leg in legs)]
            )
        )
        for _ in range(self._max_attempts):
            snapshot = store.load(ids, [], step)
            if snapshot.idempotent is not None:
                return CreditOutcome(snapshot.idempotent.response.decode())
            events = credit_events(record, shard, snapshot.state, self._shards)
            result = store.commit(
                Commit(
                    idempotency_key=step,
                    request_hash=b"",
                    response=CreditOutcome.APPLIED.value.encode(),
                    events=events,
                    decided_on=snapshot.state,
                )
            )
            match result:
                case Committed(response=stored):
                    return CreditOutcome(stored.response.decode())
                case Stale(reason=reason) if reason.startswith("balance of"):
                    return CreditOutcome(store.refuse(step))
                case _:
                    pass  # an account it opens was opened meanwhile: decide again
        raise Unavailable(
            f"the credit of transfer {shown(record.transfer_id)} in shard {shard} could not"
            " be committed; the next recovery sweep completes it"
        )

    def recover(self, older_than_ms: int, now_ms: int) -> int:
        """The recovery sweep: drive every transfer pending since before
        `now_ms - older_than_ms` (its own process died or is slow); returns how many.
        Every ledger replica runs it; two finishing one transfer is safe."""
        driven = 0
        for store in self._stores:
            for tid in store.pending_transfers(now_ms - older_than_ms):
                loaded = store.load_transfer(tid)
                if loaded is not None and loaded[1] is TransferStatus.PENDING:
                    self._drive(*loaded)
                    driven += 1
        return driven

    # -- the one mutation path ------------------------------------------------------------

    def _mutate(
        self,
        method: str,
        request: Message,
        command: Command,
        account_ids: Sequence[str],
        reservation_ids: Sequence[str],
        respond: Callable[[LedgerState, Sequence[Event]], R],
        loaded: Snapshot | None = None,
        refresh: Callable[[LedgerState, R], R] | None = None,
        home: int = 0,
    ) -> R:
        """`loaded`: a snapshot of exactly these accounts, reservations and key, just read by
        the caller; the first attempt decides on it instead of reading them again.
        `refresh`: how a replayed response is brought up to date from the state read with
        its stored record (the same atomic read); without it a replay is the stored bytes."""
        key = "" if isinstance(command, OpenAccount) else validate_key(command.key)
        digest = request_hash(method, request)
        if self._shards > 1 and key:
            self._claim(key, home, persistent=isinstance(command, Reserve))
        store = self._stores[home]
        for attempt in range(self._max_attempts):
            if attempt == 0 and loaded is not None:
                snapshot = loaded
            else:
                snapshot = self._load(account_ids, reservation_ids, key, home)
            if snapshot.idempotent is not None:
                replayed = cast(R, self._replay(snapshot.idempotent, digest, request))
                self._settle(home, key, snapshot.transfer_status)
                return replayed if refresh is None else refresh(snapshot.state, replayed)
            events = decide(snapshot.state, command)
            response = respond(snapshot.state, events)
            if not events:
                return response
            steps = plan(events, snapshot.state, self._shards)
            if steps.home != home:
                raise AssertionError(f"{method} decided in shard {steps.home}, homed in {home}")
            pending = steps.pending
            result = store.commit(
                Commit(
                    idempotency_key=key,
                    request_hash=digest,
                    response=response.SerializeToString(deterministic=True),
                    events=steps.events,
                    decided_on=snapshot.state,
                    required_funds=_required_funds(snapshot.state, steps.events),
                    required_reservations=self._required_reservations(command),
                    journal_version=(
                        snapshot.journal_version
                        if self._concurrency is Concurrency.SERIAL
                        else None
                    ),
                    transfer_write=(
                        None
                        if pending is None
                        else (
                            pending.transfer_id,
                            TransferStatus.PENDING.value,
                            _record_bytes(pending),
                        )
                    ),
                )
            )
            if isinstance(result, Committed) and self._shards > 1:
                # Ours or a concurrent duplicate's: either way, its transfer (if it started
                # one) ends before the answer.
                self._settle(home, key, _status_after(pending, result, store, key))
            match result:
                case Committed(response=stored, replayed=True) if refresh is not None:
                    # A concurrent duplicate committed first; what became of its effect
                    # since is only known from a fresh read (this rare race only).
                    state = self._load(account_ids, reservation_ids, key, home).state
                    return refresh(state, cast(R, self._replay(stored, digest, request)))
                case Committed(response=stored):
                    return cast(R, self._replay(stored, digest, request))
                case InsufficientFunds(account_id=account_id, needed=needed):
                    currency = parse_account_id(account_id).currency
                    raise FailedPrecondition(
                        funds_message(account_id, currency, needed, result.balance, result.held)
                    )
                case Stale():
                    # Somebody else committed first; back off a little so retries spread out.
                    time.sleep(random.uniform(0, 0.0005 * min(attempt + 1, 20)))
        raise Unavailable(
            f"the ledger is too busy to commit {method} after {self._max_attempts} attempts;"
            " retry with the same idempotency key"
        )

    def _resolve(
        self,
        method: str,
        request: Message,
        command: Post | Void,
        respond: Callable[[LedgerState, Sequence[Event]], R],
    ) -> R:
        """Post or Void: find the reservation's accounts, then the usual path.

        When this process remembers the reservation's accounts (it opened it, or resolved it
        before), the first read loads them together with the reservation, and that read is
        also the first attempt's snapshot: one read instead of two. The hint is only used
        when it matches the legs the read returns.
        """
        validate_key(command.key)
        rid = command.reservation_id
        if self._shards > 1:
            home = self._reservation_home(rid)
            reservation = (
                None
                if home is None
                else self._stores[home].load([], [rid], "").state.reservations.get(rid)
            )
            if home is None or reservation is None:
                # A replay of a resolved one still finds its reservation; so this never was.
                raise NotFound(f"reservation {shown(rid)} does not exist")
            accounts = tuple(self._accounts_of(reservation.legs))
            return self._mutate(method, request, command, accounts, [rid], respond, home=home)
        hint = self._reservation_accounts.get(rid)
        first = self._store.load(hint or [], [rid], command.key)
        if first.idempotent is not None:
            return cast(R, self._replay(first.idempotent, request_hash(method, request), request))
        reservation = first.state.reservations.get(rid)
        if reservation is None:
            raise NotFound(f"reservation {shown(rid)} does not exist")
        accounts = tuple(self._accounts_of(reservation.legs))
        hinted = hint == accounts
        if not hinted:
            self._reservation_accounts.put(rid, accounts)
        loaded = first if hinted else None
        return self._mutate(method, request, command, accounts, [rid], respond, loaded)

    @staticmethod
    def _may_use_key(principal: Principal, key: str) -> None:
        """A well-formed key (INVALID_ARGUMENT) from the caller's own namespace
        (PERMISSION_DENIED), checked before anything is read: see `authorization`."""
        authorization.may_use_key(principal, validate_key(key))

    @staticmethod
    def _replay(stored: StoredResponse, digest: bytes, request: Message) -> Any:
        """The stored response of a key, as first returned; refused for another request."""
        if stored.request_hash != digest:
            raise InvalidArgument(REUSED_KEY)
        return _RESPONSES[type(request)].FromString(stored.response)

    @staticmethod
    def _required_reservations(command: Command) -> dict[str, str]:
        if isinstance(command, Reserve):
            return {command.key: ""}
        if isinstance(command, Post | Void):
            return {command.reservation_id: "pending"}
        return {}

    @staticmethod
    def _accounts_of(legs: Legs) -> list[str]:
        """The accounts legs name, each checked to be a well-formed id (else INVALID_ARGUMENT)."""
        return list(dict.fromkeys(parse_account_id(leg.account_id).id for leg in legs))

    @staticmethod
    def _existing(state: LedgerState, account_id: str) -> Account:
        account = state.accounts.get(account_id)
        if account is None:
            raise NotFound(f"account {account_id} does not exist")
        return account
