"""The ledger on Redis: the journal stream is the truth, hashes hold the projection.

Keys (all share the hash tag ``{ledger:<namespace>}``, so one Lua script may touch them
together; the ledger is one aggregate in one cluster slot):

* ``{ledger:ns}:events``     the journal: an event-store stream (entry ``<version>-0``, fields
                             type, schema, data, idem, version, at_ms), readable with
                             ``RedisEventStore.read/subscribe`` and the ledger's registry
* ``{ledger:ns}:version``    the journal version (last event's version), as the event store
* ``{ledger:ns}:accounts``   hash account id -> Account message
* ``{ledger:ns}:balance``/``held``  hashes account id -> posted chips / chips held
* ``{ledger:ns}:resv``       hash reservation id -> ReservationOpened message
* ``{ledger:ns}:resv_status`` hash reservation id -> pending | posted | voided
* ``{ledger:ns}:response:<key>``  hash h (request hash), r (serialized response); TTL
* ``{ledger:ns}:hist:<account>``  stream of Movement messages of one account (History pages)

`load` runs lua.LOAD: one round trip that reads what a command decides on. `commit` runs
lua.COMMIT: one round trip that checks the idempotency key and every precondition, then
appends the events, updates the projection, writes the history rows and stores the response,
or writes nothing at all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar, cast

from croupier.ledger.v1 import events_pb2, ledger_pb2
from services.ledger import codec, lua
from services.ledger.core.accounts import Account
from services.ledger.core.audit import Projection
from services.ledger.core.events import AccountOpened, EntryPosted, Event, ReservationOpened
from services.ledger.core.history import movements
from services.ledger.core.shards import PendingTransfer, TransferStatus
from services.ledger.core.state import LedgerState, Reservation, ReservationStatus, apply, effects
from services.ledger.store import (
    Commit,
    CommitResult,
    Committed,
    HistoryPage,
    InsufficientFunds,
    Snapshot,
    Stale,
    StoredResponse,
)
from services.shared import replica_ack
from services.shared.errors import Unavailable
from services.shared.eventstore import (
    Durability,
    EventRegistry,
    RedisEventStore,
    durability_from_env,
    stream_key,
)
from services.shared.eventstore.keys import hash_tag, version_key
from services.shared.redis_connection import SyncClient, storage_errors_as_unavailable
from services.shared.replica_ack import NO_WAIT, ReplicaAck

DEFAULT_TTL_SECONDS = 48 * 3600


def _storage_errors_as_unavailable() -> AbstractContextManager[None]:
    """A Redis that is down, restarting, loading its AOF or failing over is UNAVAILABLE:
    retry the same key."""
    return storage_errors_as_unavailable("ledger storage")


def ledger_registry() -> EventRegistry:
    """The event types of the ledger journal, for RedisEventStore reads."""
    registry = EventRegistry()
    for message_type in codec.EVENT_TYPES.values():
        registry.register(message_type, codec.SCHEMA_VERSION)
    return registry


def _account_bytes(account: Account) -> bytes:
    return codec.account_to_pb(account).SerializeToString(deterministic=True)


def _account(raw: bytes) -> Account:
    return codec.account_from_pb(ledger_pb2.Account.FromString(raw))


F = TypeVar("F", bound=Callable[..., Any])


def _guarded(method: F) -> F:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _storage_errors_as_unavailable():
            return method(*args, **kwargs)

    return cast(F, wrapper)


class RedisLedgerStore:
    def __init__(
        self,
        client: SyncClient,
        *,
        namespace: str = "ledger",
        shard: int = 0,
        idempotency_ttl_seconds: int = DEFAULT_TTL_SECONDS,
        durability: Durability | None = None,
        waitaof_timeout_ms: int = 2000,
        replica_ack: ReplicaAck = NO_WAIT,
    ) -> None:
        self._redis = client
        # Which shard of a sharded ledger this store holds (its namespace names it too).
        self.shard = shard
        self._ttl = idempotency_ttl_seconds
        self._waitaof_timeout_ms = waitaof_timeout_ms
        # Acknowledge a write only once that many replicas have it (replica_ack.py).
        self._replica_ack = replica_ack
        self.journal_key = stream_key("ledger", namespace)
        tag = hash_tag(self.journal_key)
        # Also probes WAITAOF support at start-up in strict mode (refuses to start without it).
        self.events = RedisEventStore(
            client, ledger_registry(), durability=durability or durability_from_env()
        )
        self.durability: Durability = self.events.durability
        self._accounts = f"{tag}:accounts"
        self._balance = f"{tag}:balance"
        self._held = f"{tag}:held"
        self._resv = f"{tag}:resv"
        self._resv_status = f"{tag}:resv_status"
        self._version = version_key(self.journal_key)
        self._idem_prefix = f"{tag}:response:"
        self._hist_prefix = f"{tag}:hist:"
        self._xfer = f"{tag}:xfer"
        self._xfer_status = f"{tag}:xfer_status"
        self._xfer_pending = f"{tag}:xfer_pending"
        self._claim_prefix = f"{tag}:claim:"
        self._tag = tag
        self._load_script = client.register_script(lua.LOAD)
        self._commit_script = client.register_script(lua.COMMIT)
        self._refuse_script = client.register_script(lua.REFUSE)

    def idempotency_key(self, key: str) -> str:
        return self._idem_prefix + key

    # -- load --------------------------------------------------------------------------

    @_guarded
    def load(
        self, account_ids: Sequence[str], reservation_ids: Sequence[str], idempotency_key: str
    ) -> Snapshot:
        ids, rids = list(dict.fromkeys(account_ids)), list(dict.fromkeys(reservation_ids))
        keys = [
            self._accounts,
            self._balance,
            self._held,
            self._resv,
            self._resv_status,
            self.idempotency_key(idempotency_key),
            self._version,
            self._xfer_status,
        ]
        reply = self._load_script(keys=keys, args=[idempotency_key, len(ids), *ids, *rids])
        accounts_raw, balances_raw, held_raw, resv_raw, status_raw, idem, version, xfer = reply
        accounts: dict[str, Account] = {}
        balances: dict[str, int] = {}
        held: dict[str, int] = {}
        for account_id, raw, balance, hold in zip(
            ids, accounts_raw, balances_raw, held_raw, strict=False
        ):
            if raw is None:
                continue
            accounts[account_id] = _account(raw)
            balances[account_id] = int(balance or 0)
            held[account_id] = int(hold or 0)
        reservations: dict[str, Reservation] = {}
        for rid, raw, status in zip(rids, resv_raw, status_raw, strict=False):
            if raw is None:
                continue
            opened = codec.event_from_pb(events_pb2.ReservationOpened.FromString(raw))
            assert isinstance(opened, ReservationOpened)
            reservations[rid] = Reservation(
                rid, opened.legs, opened.metadata, ReservationStatus(status.decode())
            )
        stored = None
        if idempotency_key and idem[0] is not None:
            stored = StoredResponse(request_hash=idem[0], response=idem[1])
            if self.durability == "strict":
                # A replay is acknowledged like the original: only once it is on disk (the
                # first attempt may have failed exactly this wait).
                self._wait_for_fsync()
            # Likewise on the replicas (the first attempt may have failed that wait).
            self._wait_for_replicas()
        state = LedgerState(
            accounts=accounts, balances=balances, held=held, reservations=reservations
        )
        return Snapshot(
            state=state,
            journal_version=int(version or 0),
            idempotent=stored,
            transfer_status=xfer.decode() if xfer else None,
        )

    # -- commit ------------------------------------------------------------------------

    @_guarded
    def commit(self, commit: Commit) -> CommitResult:
        keys, args = self._commit_arguments(commit)
        reply = cast(list[bytes], self._commit_script(keys=keys, args=args))
        outcome = reply[0].decode()
        if outcome in ("ok", "dup") and self.durability == "strict":
            # Also for a replay: the first attempt may have timed out waiting for the fsync.
            self._wait_for_fsync()
        if outcome in ("ok", "dup"):
            self._wait_for_replicas()
        if outcome == "ok":
            return Committed(StoredResponse(commit.request_hash, commit.response))
        if outcome == "dup":
            return Committed(StoredResponse(reply[1], reply[2]), replayed=True)
        if outcome == "funds":
            needed, balance, held = (int(x) for x in reply[2:5])
            return InsufficientFunds(reply[1].decode(), needed, balance, held)
        return Stale(reply[1].decode())

    def _commit_arguments(self, commit: Commit) -> tuple[list[str], list[Any]]:
        new_accounts: list[Any] = []
        deltas: dict[str, list[int]] = {}
        reservation_writes: list[Any] = []
        encoded: list[Any] = []
        history_keys: list[str] = []
        history_rows: list[bytes] = []
        state = commit.decided_on
        for event in commit.events:
            if isinstance(event, AccountOpened):
                new_accounts += [event.account.id, _account_bytes(event.account)]
            for effect in effects(event, state.reservations):
                delta = deltas.setdefault(effect.account_id, [0, 0])
                delta[0] += effect.balance_delta
                delta[1] += effect.held_delta
            for movement in movements(event, state.reservations):
                history_keys.append(self._hist_prefix + movement.account_id)
                history_rows.append(
                    codec.movement_to_pb(movement).SerializeToString(deterministic=True)
                )
            state = apply(state, event)
            type_name, data = codec.encode_event(event)
            encoded += [type_name, codec.SCHEMA_VERSION, data]
            if isinstance(event, ReservationOpened):
                reservation_writes += [
                    event.reservation_id,
                    ReservationStatus.PENDING.value,
                    codec.encode_event(event)[1],
                ]
            elif (rid := getattr(event, "reservation_id", None)) is not None:
                reservation_writes += [rid, state.reservations[rid].status.value, b""]
        args: list[Any] = [
            commit.idempotency_key,
            commit.request_hash,
            commit.response,
            self._ttl,
            -1 if commit.journal_version is None else commit.journal_version,
            *(commit.transfer_check or ("", "")),
            *(commit.transfer_write or ("", "", b"")),
            len(commit.required_funds),
            *[x for item in sorted(commit.required_funds.items()) for x in item],
            len(commit.required_reservations),
            *[x for item in sorted(commit.required_reservations.items()) for x in item],
            len(new_accounts) // 2,
            *new_accounts,
            len(encoded) // 3,
            *encoded,
            len(deltas),
            *[x for account_id, (b, h) in deltas.items() for x in (account_id, b, h)],
            len(reservation_writes) // 3,
            *reservation_writes,
            len(history_rows),
            *history_rows,
        ]
        keys = [
            self.journal_key,
            self._accounts,
            self._balance,
            self._held,
            self._resv,
            self._resv_status,
            self.idempotency_key(commit.idempotency_key),
            self._version,
            self._xfer,
            self._xfer_status,
            self._xfer_pending,
            *history_keys,
        ]
        return keys, args

    # -- cross-shard transfers -------------------------------------------------------------

    def _record(self, transfer_id: str, raw: bytes) -> PendingTransfer:
        entry = codec.event_from_pb(events_pb2.EntryPosted.FromString(raw))
        assert isinstance(entry, EntryPosted)
        return PendingTransfer(transfer_id, self.shard, entry.legs, entry.metadata)

    @_guarded
    def load_transfer(self, transfer_id: str) -> tuple[PendingTransfer, TransferStatus] | None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.hget(self._xfer, transfer_id)
        pipe.hget(self._xfer_status, transfer_id)
        raw, status = pipe.execute()
        if raw is None or status is None:
            return None
        return self._record(transfer_id, raw), TransferStatus(status.decode())

    @_guarded
    def transfers(self) -> dict[str, tuple[PendingTransfer, TransferStatus]]:
        pipe = self._redis.pipeline(transaction=True)
        pipe.hgetall(self._xfer)
        pipe.hgetall(self._xfer_status)
        records, statuses = pipe.execute()
        return {
            tid.decode(): (self._record(tid.decode(), raw), TransferStatus(statuses[tid].decode()))
            for tid, raw in records.items()
        }

    @_guarded
    def pending_transfers(self, written_before_ms: int) -> list[str]:
        ids = self._redis.zrangebyscore(self._xfer_pending, "-inf", written_before_ms)
        return [tid.decode() for tid in cast(list[bytes], ids)]

    @_guarded
    def refuse(self, step_key: str) -> str:
        outcome = self._refuse_script(keys=[self.idempotency_key(step_key)], args=[self._ttl])
        # A refusal lost with its master would let a later credit apply after the refund.
        self._wait_for_replicas()
        return cast(bytes, outcome).decode()

    @_guarded
    def claim(self, key: str, home: int, persistent: bool) -> int | None:
        """Claim `key` for a command homed in shard `home` (SET NX GET); the home an earlier
        claim named, if any. A reservation's claim is `persistent`: it locates the
        reservation (whose id never expires) for its Post and Void."""
        previous = self._redis.set(
            self._claim_prefix + key, home, nx=True, get=True, ex=None if persistent else self._ttl
        )
        if previous is None:
            self._wait_for_replicas()
        return None if previous is None else int(cast(bytes, previous))

    @_guarded
    def claimed(self, key: str) -> int | None:
        home = self._redis.get(self._claim_prefix + key)
        return None if home is None else int(cast(bytes, home))

    def _wait_for_replicas(self) -> None:
        """CROUPIER_LEDGER_WAIT_REPLICAS: acknowledge only once that many replicas of this
        shard's master have every write made so far (the commit, or the first attempt's
        commit a replay answers from), so a master killed right after the answer loses
        nothing acknowledged (services/shared/replica_ack.py)."""
        replica_ack.wait(self._redis, self._tag, self._replica_ack, "commit")

    def _wait_for_fsync(self) -> None:
        """Strict durability: acknowledge only once Redis confirms the AOF fsync."""
        synced = self._redis.execute_command("WAITAOF", 1, 0, self._waitaof_timeout_ms)  # type: ignore[no-untyped-call]
        if int(synced[0]) < 1:
            raise Unavailable(
                f"commit not confirmed durable (AOF fsync) within {self._waitaof_timeout_ms} ms;"
                " retry with the same idempotency key"
            )

    # -- reads ---------------------------------------------------------------------------

    @_guarded
    def history(self, account_id: str, limit: int, before: str) -> HistoryPage:
        upper = f"({before}" if before else "+"
        rows = cast(
            list[tuple[bytes, dict[bytes, bytes]]],
            self._redis.xrevrange(self._hist_prefix + account_id, upper, "-", count=limit + 1),
        )
        page = [(entry_id.decode(), fields[b"data"]) for entry_id, fields in rows[:limit]]
        next_cursor = page[-1][0] if len(rows) > limit else ""
        return HistoryPage(movements=page, next_cursor=next_cursor)

    @_guarded
    def journal_and_projection(self) -> tuple[list[Event], Projection]:
        """The projection and the journal up to the same version.

        The projection and the journal version are read in one MULTI, so they agree in time;
        journal entries up to that version never change, so reading them afterwards is safe.
        """
        pipe = self._redis.pipeline(transaction=True)
        for hash_key in (self._accounts, self._balance, self._held, self._resv_status):
            pipe.hgetall(hash_key)
        pipe.get(self._version)
        accounts_raw, balances_raw, held_raw, status_raw, version = pipe.execute()
        version = int(version or 0)
        recorded = self.events.read(self.journal_key, 1, limit=version) if version else []
        journal = [codec.event_from_pb(event.message) for event in recorded]
        projection = Projection(
            accounts={k.decode(): _account(v) for k, v in accounts_raw.items()},
            balances={k.decode(): int(v) for k, v in balances_raw.items()},
            held={k.decode(): int(v) for k, v in held_raw.items()},
            reservation_status={k.decode(): v.decode() for k, v in status_raw.items()},
        )
        return journal, projection

    def rebuild_projection(self) -> int:
        """Recompute the projection from the journal and replace it; returns events replayed.

        For recovery with the ledger stopped (writers would race the rewrite).
        """
        recorded = self.events.read(self.journal_key)
        state = LedgerState()
        for event in recorded:
            state = apply(state, codec.event_from_pb(event.message))
        pipe = self._redis.pipeline(transaction=True)
        pipe.delete(self._accounts, self._balance, self._held, self._resv, self._resv_status)
        for account_id, account in state.accounts.items():
            pipe.hset(self._accounts, account_id, _account_bytes(account))
            pipe.hset(self._balance, account_id, state.balance(account_id))
            pipe.hset(self._held, account_id, state.held_in(account_id))
        for rid, reservation in state.reservations.items():
            opened = ReservationOpened(rid, reservation.legs, reservation.metadata)
            pipe.hset(self._resv, rid, codec.encode_event(opened)[1])
            pipe.hset(self._resv_status, rid, reservation.status.value)
        pipe.execute()
        return len(recorded)
