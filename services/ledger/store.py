"""The port between the ledger application and its storage.

A store answers two questions atomically: "what do these accounts, reservations and this
idempotency key look like right now" (`load`) and "apply this decided change if its
preconditions still hold" (`commit`). Preconditions are the rules that concurrent commits
can break between load and commit: available funds, reservation status, an account not yet
opened, and (only in serial mode) the journal version.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from services.ledger.core.audit import Projection
from services.ledger.core.events import Event
from services.ledger.core.shards import PendingTransfer, TransferStatus
from services.ledger.core.state import LedgerState


class Concurrency(enum.StrEnum):
    """How commits are serialised.

    CHECKED: each commit re-checks only its own preconditions (funds, reservation status) and
    applies commutative increments, so commits on unrelated or even the same accounts never
    conflict unless a rule would break.
    SERIAL: each commit also requires the journal version it loaded (an expected-version
    append to one global stream); any concurrent commit forces a reload and retry.
    """

    CHECKED = "checked"
    SERIAL = "serial"


@dataclass(frozen=True, slots=True)
class StoredResponse:
    request_hash: bytes
    response: bytes


@dataclass(frozen=True, slots=True)
class Snapshot:
    state: LedgerState
    journal_version: int
    idempotent: StoredResponse | None = None
    # The status of the cross-shard transfer the key started, if it started one.
    transfer_status: str | None = None


@dataclass(frozen=True, slots=True)
class Commit:
    idempotency_key: str
    request_hash: bytes
    response: bytes
    events: Sequence[Event]
    # The state the events were decided on (reservations needed to derive effects).
    decided_on: LedgerState
    # Available chips each (non-external) account must still have: account id -> needed.
    required_funds: Mapping[str, int] = field(default_factory=dict)
    # Reservation id -> status it must still have ("" = must not exist yet).
    required_reservations: Mapping[str, str] = field(default_factory=dict)
    # Expected journal version (serial mode only).
    journal_version: int | None = None
    # A cross-shard transfer that must still have this status: (transfer id, status).
    transfer_check: tuple[str, str] | None = None
    # A cross-shard transfer record to write: (transfer id, status, record or b"" to keep).
    transfer_write: tuple[str, str, bytes] | None = None


@dataclass(frozen=True, slots=True)
class Committed:
    """The commit was applied, or an identical key had been: `response` is what to return.
    `replayed`: the key had been (a concurrent duplicate committed first), so `response` is
    that first execution's, stored before this commit was decided."""

    response: StoredResponse
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class InsufficientFunds:
    account_id: str
    needed: int
    balance: int
    held: int


@dataclass(frozen=True, slots=True)
class Stale:
    """A precondition other than funds no longer holds: reload and decide again."""

    reason: str


CommitResult = Committed | InsufficientFunds | Stale


@dataclass(frozen=True, slots=True)
class HistoryPage:
    movements: Sequence[tuple[str, bytes]]  # (cursor, serialized Movement without cursor/time)
    next_cursor: str


class LedgerStore(Protocol):
    def load(
        self, account_ids: Sequence[str], reservation_ids: Sequence[str], idempotency_key: str
    ) -> Snapshot: ...

    def commit(self, commit: Commit) -> CommitResult: ...

    def history(self, account_id: str, limit: int, before: str) -> HistoryPage: ...

    def journal_and_projection(self) -> tuple[list[Event], Projection]: ...

    # -- cross-shard transfers (a sharded ledger; core/shards.py) --------------------------

    def load_transfer(self, transfer_id: str) -> tuple[PendingTransfer, TransferStatus] | None: ...

    def transfers(self) -> dict[str, tuple[PendingTransfer, TransferStatus]]: ...

    def pending_transfers(self, written_before_ms: int) -> list[str]: ...

    def refuse(self, step_key: str) -> str: ...

    def claim(self, key: str, home: int, persistent: bool) -> int | None: ...

    def claimed(self, key: str) -> int | None: ...
