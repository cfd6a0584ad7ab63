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
from services.ledger.core.entries import Legs, net_outflow
from services.ledger.core.events import (
    EntryPosted,
    Event,
    ReservationOpened,
    ReservationPosted,
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
        store: LedgerStore,
        *,
        concurrency: Concurrency = Concurrency.CHECKED,
        max_attempts: int = 200,
        cashier_limit: int = 0,
    ) -> None:
        self._store = store
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

        return self._mutate("OpenAccount", request, command, [account.id], [], respond)

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
        return self._mutate(
            name,
            request,
            command,
            ids,
            [],
            lambda _, events: response_type(
                entry_id=_entry(events).entry_id, legs=codec.legs_to_pb(_entry(events).legs)
            ),
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
            "Reserve", request, command, accounts, [command.key], respond, refresh=refresh
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
        state = self._store.load([request.account_id], [], "").state
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
        reservation = self._store.load([], [rid], "").state.reservations.get(rid)
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
        self._existing(self._store.load([request.account_id], [], "").state, request.account_id)
        page = self._store.history(request.account_id, limit, request.before)
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
    ) -> R:
        """`loaded`: a snapshot of exactly these accounts, reservations and key, just read by
        the caller; the first attempt decides on it instead of reading them again.
        `refresh`: how a replayed response is brought up to date from the state read with
        its stored record (the same atomic read); without it a replay is the stored bytes."""
        key = "" if isinstance(command, OpenAccount) else validate_key(command.key)
        digest = request_hash(method, request)
        for attempt in range(self._max_attempts):
            if attempt == 0 and loaded is not None:
                snapshot = loaded
            else:
                snapshot = self._store.load(account_ids, reservation_ids, key)
            if snapshot.idempotent is not None:
                replayed = cast(R, self._replay(snapshot.idempotent, digest, request))
                return replayed if refresh is None else refresh(snapshot.state, replayed)
            events = decide(snapshot.state, command)
            response = respond(snapshot.state, events)
            if not events:
                return response
            result = self._store.commit(
                Commit(
                    idempotency_key=key,
                    request_hash=digest,
                    response=response.SerializeToString(deterministic=True),
                    events=events,
                    decided_on=snapshot.state,
                    required_funds=_required_funds(snapshot.state, events),
                    required_reservations=self._required_reservations(command),
                    journal_version=(
                        snapshot.journal_version
                        if self._concurrency is Concurrency.SERIAL
                        else None
                    ),
                )
            )
            match result:
                case Committed(response=stored, replayed=True) if refresh is not None:
                    # A concurrent duplicate committed first; what became of its effect
                    # since is only known from a fresh read (this rare race only).
                    state = self._store.load(account_ids, reservation_ids, key).state
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
