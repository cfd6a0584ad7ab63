"""Tables come and are listed: CreateTable's checks and first append, the table directory.

A table's stream starts with TableCreated (the envelope's options) and the game's opening
events, appended once under the key `<table>/create`, so a retried create finds its table;
the table's escrow account exists before the table does, and its id joins the directory
stream ListTables pages through. Requested bots are seated by the workers (a trigger).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.shared import errors
from services.shared.eventstore import EventStore
from services.table.bot_requests import (
    MAX_BOT_CHIPS_PER_TABLE,
    check_bot_chips,
    check_requested_bots,
)
from services.table.folding import DIRECTORY_STREAM, table_stream
from services.table.games.adapter import GameTable
from services.table.ports import LedgerPort, SchedulerPort
from services.table.retrier import Retrier
from services.table.shell import Table
from services.table.tables import Tables

log = structlog.get_logger(__name__)
MAX_ATTEMPTS = 20
# Most tables one ListTables page may hold (a request for 0 gets every table at once).
MAX_PAGE_SIZE = 1000
# Longest table id: a bot's player id bot-<policy>-<difficulty %>-<table id>-s<seat> is its
# ledger account's name (at most 64 characters): 18 + 40 with the longest built-in policy.
MAX_TABLE_ID_LENGTH = 40
# Longest idempotency key a command may carry (it is recorded with the command's events).
MAX_KEY_LENGTH = 200


def require_key(key: str) -> str:
    """A command's idempotency key, which every command needs: INVALID_ARGUMENT when it is
    missing (a keyless command could never be retried safely, nor told from another one)."""
    if not key:
        raise errors.InvalidArgument(
            "idempotency_key is required: send a new key with each command and the same key "
            "with its retries"
        )
    if len(key) > MAX_KEY_LENGTH:
        raise errors.InvalidArgument(
            f"idempotency_key is {len(key)} characters; at most {MAX_KEY_LENGTH}"
        )
    return key


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What CreateTable asks for: the game's configuration (its adapter's
    `config_from_options`), the options as sent, and the envelope's options."""

    config: Any
    game: GameTable | None = None  # None: the catalog's default game (poker)
    options: table_pb2.TableOptions = field(default_factory=table_pb2.TableOptions)
    currency: str = "CHIP"
    action_time_ms: int = 0
    time_bank_ms: int = 0
    time_bank_chunk_ms: int = 0
    time_bank_refill_ms: int = 0
    time_bank_refill_every_hands: int = 0
    time_bank_cap_ms: int = 0
    bots: tuple[tuple[str, float], ...] = ()
    table_id: str = ""
    min_players_to_start: int = 2
    # who receives each hand's seed once it is over (events_pb2.SeedReveal; 0 = auditors)
    seed_reveal: int = 0


@dataclass(frozen=True, slots=True)
class TablePage:
    """One page of ListTables: the tables, and the token of the next page ("" when last)."""

    tables: list[Table]
    next_token: str


class TableCreation:
    def __init__(
        self,
        tables: Tables,
        ledger: LedgerPort,
        scheduler: SchedulerPort,
        retrier: Retrier,
        max_bot_chips_per_table: int = MAX_BOT_CHIPS_PER_TABLE,
    ) -> None:
        self.tables = tables
        self.max_bot_chips_per_table = max_bot_chips_per_table
        self.store: EventStore = tables.store
        self.ledger = ledger
        self.scheduler = scheduler
        self.retrier = retrier

    def create_table(self, spec: TableSpec, by: str, key: str) -> Table:
        if len(spec.table_id) > MAX_TABLE_ID_LENGTH:
            raise errors.InvalidArgument(
                f"table_id is {len(spec.table_id)} characters; table ids are at most "
                f"{MAX_TABLE_ID_LENGTH} characters (a requested bot's player id, "
                "bot-<policy>-<difficulty %>-<table id>-s<seat>, names its ledger account, "
                "whose name is at most 64 characters)"
            )
        require_key(key)
        if spec.seed_reveal not in events_pb2.SeedReveal.values():
            raise errors.InvalidArgument(
                f"seed_reveal {spec.seed_reveal} is not a SeedReveal: auditors (1), "
                "hand players (2) or everyone (3); 0 means auditors"
            )
        game = spec.game or self.tables.catalog.default
        opening = list(game.opening_events(spec.config))
        state = game.initial_state(spec.options)
        for event in opening:
            state = game.rules.apply(state, event)
        check_requested_bots(spec.bots, game.seat_count(state), game.bot_policies)
        o = spec.options
        limit = self.max_bot_chips_per_table
        stake = o.spit.stake if o.HasField("spit") else 0
        check_bot_chips(
            len(spec.bots), o.big_blind, o.ante, o.min_buy_in, o.max_buy_in, limit, stake
        )
        table_id = spec.table_id or f"t{uuid.uuid5(uuid.NAMESPACE_URL, by + '/' + key).hex[:12]}"
        stream = table_stream(table_id)
        created = events_pb2.TableCreated(
            table_id=table_id,
            game=game.name,
            currency=spec.currency,
            created_by=by,
            action_time_ms=spec.action_time_ms,
            time_bank_ms=spec.time_bank_ms,
            time_bank_chunk_ms=spec.time_bank_chunk_ms,
            time_bank_refill_ms=spec.time_bank_refill_ms,
            time_bank_refill_every_hands=spec.time_bank_refill_every_hands,
            time_bank_cap_ms=spec.time_bank_cap_ms,
            min_players_to_start=spec.min_players_to_start,
            bots=[events_pb2.BotSeatSpec(policy=p, difficulty=d) for p, d in spec.bots],
            options=spec.options.SerializeToString(deterministic=True),
            seed_reveal=spec.seed_reveal or game.default_seed_reveal,  # type: ignore[arg-type]
        )
        try:
            messages = [created, *(game.events.to_message(e) for e in opening)]
        except ValueError as exc:  # a value protobuf cannot carry: refused before any effect
            raise errors.InvalidArgument(f"table options out of range: {exc}") from exc
        # Only a table that can be recorded gets its escrow account.
        self.ledger.ensure_accounts(table_id, spec.currency)
        self.tables.mark(table_id)  # (its requested bots' seating triggers follow the append)
        try:
            self.store.append(stream, messages, 0, _create_key(table_id, by, key, messages))
        except errors.Conflict as exc:
            raise errors.AlreadyExists(f"table {table_id} exists already") from exc
        self._register(table_id)
        # Bots take their seats like anyone, through JoinTable with their own credentials:
        # the workers do it (a trigger; a duplicate finds the bot seated already).
        try:
            for index, (policy, difficulty) in enumerate(spec.bots):
                self.scheduler.schedule_seat_bot(table_id, index, policy, difficulty)
        except Exception as exc:  # the table exists: its triggers are sent again later
            log.warning("could not trigger bot seating", table=table_id, error=repr(exc)[:200])
            self.retrier.retry_later(table_id)
        return self.tables.load(table_id)

    def _register(self, table_id: str) -> None:
        entry = events_pb2.TableCreated(table_id=table_id)
        for _ in range(MAX_ATTEMPTS):
            version = self.store.version(DIRECTORY_STREAM)
            try:
                self.store.append(DIRECTORY_STREAM, [entry], version, f"register/{table_id}")
                return
            except errors.Conflict:
                continue
        raise errors.Unavailable("the table directory is too busy: retry")

    def list_tables(self, page_token: str, page_size: int) -> TablePage:
        """A page of the tables this service knows, oldest first. The token is the directory
        version the previous page ended at ("" from the start)."""
        if not 0 <= page_size <= MAX_PAGE_SIZE:
            raise errors.InvalidArgument(
                f"page_size is {page_size}; 1..{MAX_PAGE_SIZE} tables a page, or 0 for all"
            )
        if page_token and not (
            page_token.isascii() and page_token.isdigit() and len(page_token) < 19
        ):
            raise errors.InvalidArgument(
                f"page_token {errors.shown(page_token)} is not one ListTables gave: pass "
                "next_page_token as it came, or none to start from the first table"
            )
        after = int(page_token or 0)
        size = page_size or None
        entries = self.store.read(DIRECTORY_STREAM, after + 1, limit=size and size + 1)
        page = entries[:size]
        tables = [self.tables.load(e.message.table_id) for e in page]  # type: ignore[attr-defined]
        more = size is not None and len(entries) > size
        return TablePage(tables, str(page[-1].version) if more else "")


def _create_key(table_id: str, by: str, key: str, messages: Sequence[Message]) -> str:
    """The create append's idempotency key: the table, the caller's own key and what it asks
    for, so only an identical retry of the same command is answered with the table (another
    request for a taken id conflicts: ALREADY_EXISTS)."""
    digest = hashlib.sha256(f"{by}\0{key}".encode())
    for message in messages:
        digest.update(message.SerializeToString(deterministic=True))
    return f"{table_id}/create/{digest.hexdigest()[:32]}"
