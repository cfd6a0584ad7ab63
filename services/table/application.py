"""The table application: load a table, let the engine decide, append once, drive the process.

Every command follows one path (`_execute`): load the table (a cached state plus any newer
events), answer a retry from the remembered idempotency keys, check the caller's expected
version, call the pure engine `decide`, and append the resulting events in ONE append guarded
by the loaded version and a deterministic idempotency key. A Conflict (another writer, maybe
another instance, got there first) reloads and decides again. The steps that follow a command
and touch nothing outside (ranking a showdown, a rake-free settlement) join its append. After
it, `drive` runs the other process steps the table needs next (ledger postings, dealer cards,
reveals) in memory, each keyed deterministically by the version it starts from, and appends
them together once, so a crash before that append is finished by whoever loads the table
next (same keys, same cards and entries) and two instances never apply a step twice.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import structlog
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2
from services.games.errors import RuleViolation
from services.games.poker import commands as cmd
from services.games.poker.chance import NeedCards, deal_from, pending_chance, rank_hands
from services.games.poker.definitions import DealBoard, Draw, TableConfig
from services.games.poker.events import Event, TableOpened
from services.games.poker.legal import legal_actions
from services.games.poker.reducer import apply
from services.games.poker.state import TableState, new_table
from services.games.ranking import HandRanker
from services.games.timebank import (
    TimeBankExtended,
    TimeBankRefilled,
    on_deadline,
    on_hand_started,
)
from services.shared import errors
from services.shared.eventstore import EventStore, RecordedEvent, stream_key
from services.shared.limits import MAX_CHIPS
from services.table import codec, process
from services.table.attention import AttentionSet, InMemoryAttentionSet
from services.table.bot_requests import check_requested_bots
from services.table.ports import Commitment, DealerPort, LedgerPort, SchedulerPort
from services.table.shell import ShellState, Table, fold_shell

DIRECTORY_STREAM = stream_key("tables", "directory")
# The background retrier gives a stuck table up (until its next command) after this many
# void periods.
GIVE_UP_AFTER_VOIDS = 10
log = structlog.get_logger(__name__)
MAX_ATTEMPTS = 20
# Most tables one ListTables page may hold (a request for 0 gets every table at once).
MAX_PAGE_SIZE = 1000
# Longest table id: a bot's player id bot-<policy>-<difficulty %>-<table id>-s<seat> is its
# ledger account's name (at most 64 characters): 18 + 40 with the longest built-in policy.
MAX_TABLE_ID_LENGTH = 40
# Longest idempotency key a command may carry (it is recorded with the command's events).
MAX_KEY_LENGTH = 200
# At most this many side-effect-free steps (rank, settle without rake) join a command's append.
MAX_LOCAL_STEPS = 4


def domain_error(violation: RuleViolation) -> errors.DomainError:
    """The service error for a game's rule violation: the same kind, the message unchanged."""
    return errors.error_of_kind(violation.kind, violation.message)


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


# The chip amounts of a table's options (derived ones included), as the option that sets them.
_CHIP_OPTIONS = (
    ("small_blind", "small_blind"),
    ("big_blind", "big_blind"),
    ("ante", "ante"),
    ("small_bet", "small_bet (defaults to the big blind, or twice the ante)"),
    ("big_bet", "big_bet (defaults to twice the small bet)"),
    ("min_buy_in", "min_buy_in"),
    ("max_buy_in", "max_buy_in"),
    ("rake_cap", "rake_cap"),
)


def check_chip_amounts(config: TableConfig) -> None:
    """INVALID_ARGUMENT for a chip amount the ledger could never hold (beyond MAX_CHIPS)."""
    for name, option in _CHIP_OPTIONS:
        value = getattr(config, name)
        if value > MAX_CHIPS:
            raise errors.InvalidArgument(
                f"{option} is {value} chips; chip amounts are at most {MAX_CHIPS}"
            )


def shuffle_id_of(table_id: str, hand: int) -> str:
    """The dealer shuffle that deals `hand` of the table (deterministic: any instance finds it)."""
    return f"{table_id}.hand-{hand}"


def table_stream(table_id: str) -> str:
    return stream_key("table", table_id)


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What CreateTable asks for, beyond the engine's configuration."""

    config: TableConfig
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


Decider = Callable[[Table], Sequence[object]]


@dataclass(frozen=True, slots=True)
class TablePage:
    """One page of ListTables: the tables, and the token of the next page ("" when last)."""

    tables: list[Table]
    next_token: str


@dataclass(slots=True)
class _Steps:
    """Process steps taken in memory: the table they make, their events, the first step's
    key (the batch's idempotency key), how many, and the error that stopped them, if any."""

    table: Table
    events: list[object] = field(default_factory=list)
    key: str = ""
    taken: int = 0
    failure: errors.DomainError | None = None


class TableApplication:
    def __init__(
        self,
        store: EventStore,
        dealer: DealerPort,
        ledger: LedgerPort,
        ranker: HandRanker,
        scheduler: SchedulerPort,
        clock: Callable[[], int] = now_ms,
        void_after_s: float = 30.0,
        retry_interval_s: float = 0.5,
        attention: AttentionSet | None = None,
        recovery_grace_s: float = 5.0,
    ) -> None:
        self.store = store
        self.dealer = dealer
        self.ledger = ledger
        self.ranker = ranker
        self.scheduler = scheduler
        self.clock = clock
        self._cache: dict[str, Table] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.void_after_s = void_after_s
        self.retry_interval_s = retry_interval_s
        self._stalled: dict[str, float] = {}  # table id -> monotonic time of the first failure
        self._retrier: threading.Thread | None = None
        # Tables this instance marked in the attention set, with the monotonic time of the
        # mark: a table is marked again only once its mark is half a recovery grace old, so
        # the recovery sweep (which takes marks a whole grace old) never takes a table this
        # instance is still writing (attention.py, recovery.py).
        self.attention: AttentionSet = attention or InMemoryAttentionSet()
        self.recovery_grace_s = recovery_grace_s
        self._marked: dict[str, float] = {}
        self._seen: set[str] = set()  # tables this instance has loaded at least once
        # Acts being applied, by table: (player, unix ms the application received it). A
        # timeout waits for an Act its player sent before the deadline (see `apply_timeout`).
        self._acting: dict[str, list[tuple[str, int]]] = {}
        # Told (table id, first version, events, their messages, now ms) after each append
        # this instance makes: watching.py hands them to local watchers without Redis.
        self.on_appended: Callable[[str, int, Sequence[object], list[Message], int], None] | None
        self.on_appended = None

    # ------------------------------------------------------------------ loading

    def _lock(self, table_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(table_id, threading.Lock())

    def load(self, table_id: str) -> Table:
        """The table at its latest version (cached state + newer events). NotFound if none."""
        cached = self._cache.get(table_id)
        stream = table_stream(table_id)
        if cached is None:
            recorded = self.store.read(stream)
            if not recorded:
                raise errors.NotFound(f"table {table_id} does not exist")
            table = fold_recorded(table_id, recorded)
            with self._guard:
                first = table_id not in self._seen
                self._seen.add(table_id)
            if first and process.next_step(table) is not None:
                # Left mid-process by an instance that failed (or is failing now): finish it
                # in the background, without waiting for anyone's command.
                self._retry_later(table_id)
        else:
            newer = self.store.read(stream, cached.version + 1)
            table = fold_recorded(table_id, newer, cached) if newer else cached
        self._remember(table)
        return table

    def current(self, table_id: str) -> Table:
        """The cached table (possibly behind another instance's writes), else a fresh load."""
        cached = self._cache.get(table_id)
        return cached if cached is not None else self.load(table_id)

    def _remember(self, table: Table) -> None:
        with self._guard:
            cached = self._cache.get(table.table_id)
            if cached is None or cached.version < table.version:
                self._cache[table.table_id] = table

    def forget(self, table_id: str) -> None:
        with self._guard:
            self._cache.pop(table_id, None)

    def list_tables(self, page_token: str, page_size: int) -> TablePage:
        """A page of the tables this service knows, oldest first. The token is the directory
        version the previous page ended at ("" from the start)."""
        if not 0 <= page_size <= MAX_PAGE_SIZE:
            raise errors.InvalidArgument(
                f"page_size is {page_size}; 1..{MAX_PAGE_SIZE} tables a page, or 0 for all"
            )
        if page_token and not page_token.isdigit():
            raise errors.InvalidArgument(
                f"page_token {page_token!r} is not one ListTables gave: pass next_page_token "
                "as it came, or none to start from the first table"
            )
        after = int(page_token or 0)
        size = page_size or None
        entries = self.store.read(DIRECTORY_STREAM, after + 1, limit=size and size + 1)
        page = entries[:size]
        tables = [self.load(e.message.table_id) for e in page]  # type: ignore[attr-defined]
        more = size is not None and len(entries) > size
        return TablePage(tables, str(page[-1].version) if more else "")

    # ------------------------------------------------------------------ the command path

    def execute(
        self,
        table_id: str,
        key: str,
        by: str,
        decider: Decider,
        expected_version: int | None = None,
    ) -> tuple[Table, int]:
        """Run one command: ONE append, retried on conflicts; returns (table, version)."""
        if not key:
            raise errors.InvalidArgument("idempotency_key is required: a retry must reuse it")
        with self._lock(table_id):
            # Decide on the cached state first (no read); the append's expected version
            # catches a stale cache, and any refusal is re-checked against a fresh read.
            fresh = False
            for _ in range(MAX_ATTEMPTS):
                table = self.load(table_id) if fresh else self.current(table_id)
                done = table.shell.version_of_key(key)
                if done is not None:
                    return table, done
                if expected_version and expected_version != table.version:
                    if not fresh:
                        fresh = True
                        continue
                    raise errors.Conflict(
                        f"table {table_id} is at version {table.version}, not "
                        f"{expected_version}: reload the view and decide again",
                        actual_version=table.version,
                    )
                try:
                    events = list(decider(table))
                except RuleViolation as violation:
                    if not fresh:
                        fresh = True
                        continue
                    raise domain_error(violation) from violation
                if not events:
                    if not fresh:
                        fresh = True
                        continue
                    return table, table.version
                batch, folded = self._command_batch(table, key, by, events)
                self._mark(table_id)
                appended = self._append(table, batch, key, folded)
                if appended is not None:
                    self._after_append(table, appended)
                    return appended, appended.version
                fresh = True
            raise errors.Unavailable(f"table {table_id} is too busy: retry the command")
        raise AssertionError("unreachable")

    def _command_batch(
        self, table: Table, key: str, by: str, events: list[object]
    ) -> tuple[list[object], Table]:
        """A command's append: CommandAccepted, the command's events, then the process steps
        that follow and touch nothing outside (ranking a showdown, settling a hand without
        rake: `process.is_local`), then the ActionRequested when the table waits for a
        player. Returns the batch and the table it makes (versions as if appended next).

        Steps with outside effects (cards, chips, a shuffle's reveal) are never taken before
        the command is recorded: a command that loses its append (a conflict, a crash) must
        not leave cards dealt or chips moved for a decision that never happened. `drive`
        takes them right after, in one append of their own."""
        first = table.version + 2  # version + 1 is the CommandAccepted
        folded = fold_events(table, events, first)
        if not all(isinstance(e, events_pb2.TimeBankExtended) for e in events):
            # (a time-bank extension only moves the deadline: the same decision goes on)
            # A local step that fails (a remote ranker down) is left for `drive` to retry.
            run = self._take_steps(folded, MAX_LOCAL_STEPS, local_only=True)
            folded = self._ask_next(run.table, run.events, table)
            events = [*events, *run.events]
        accepted = events_pb2.CommandAccepted(key=key, by=by, events=len(events))
        # CommandAccepted only touches the shell's keys, so folding it last is the same as
        # folding it first (at its own version).
        folded = replace(folded, shell=fold_shell(folded.shell, table.version + 1, accepted))
        return [accepted, *events], folded

    def _append(
        self, table: Table, batch: Sequence[object], key: str, folded: Table | None = None
    ) -> Table | None:
        """Append `batch` after the table's version; None when someone else wrote first.
        `folded` is the table the batch makes when appended right after `table`'s version
        (saves folding it again)."""
        messages = [codec.to_message(e) for e in batch]
        try:
            result = self.store.append(table_stream(table.table_id), messages, table.version, key)
        except errors.Conflict:
            self.forget(table.table_id)
            return None
        if result.deduplicated:
            self.forget(table.table_id)
            return self.load(table.table_id)
        if self.on_appended is not None:
            self.on_appended(table.table_id, result.first_version, batch, messages, self.clock())
        if folded is None or result.first_version != table.version + 1:
            folded = fold_events(table, batch, result.first_version)
        self._remember(folded)
        return folded

    def decision_events(self, table: Table, engine: TableState) -> list[object]:
        hand = engine.hand
        if hand is None or hand.to_act is None or pending_chance(engine) is not None:
            return []
        previous = table.shell.decision
        number = previous.action_number + 1 if previous and previous.hand == hand.number else 1
        action_time = table.shell.action_time_ms
        deadline = self.clock() + action_time if action_time > 0 else 0
        legal = legal_actions(engine, hand.to_act)
        return [
            events_pb2.ActionRequested(
                hand=hand.number,
                seat=hand.to_act,
                action_number=number,
                deadline_unix_ms=deadline,
                legal_actions=sorted(legal.actions),
                to_call=legal.to_call,
                min_to=legal.min_to,
                max_to=legal.max_to,
                all_in_to=legal.all_in_to,
            )
        ]

    def _mark(self, table_id: str) -> None:
        """Mark the table in the attention set before writing it (unless this instance marked
        it less than half a recovery grace ago): if this instance fails before the table's
        process steps and triggers are done, the recovery sweep finds it there."""
        now = time.monotonic()
        last = self._marked.get(table_id)
        if last is not None and now - last < self.recovery_grace_s / 2:
            return
        self.attention.mark(table_id, self.clock())
        self._marked[table_id] = now

    def _after_append(self, before: Table, after: Table) -> None:
        """Schedule the timeout / bot turn of a new decision (a trigger, never the authority).
        The decision is recorded already, so a trigger that cannot be sent (the broker is
        down) never fails the command: the retrier and the recovery sweep send it again."""
        try:
            self._schedule_decision(before, after)
        except Exception as exc:  # any broker or transport error: retried, never fatal
            log.warning(
                "could not schedule the next decision; retrying in the background",
                table=after.table_id,
                error=repr(exc)[:200],
            )
            self._retry_later(after.table_id)

    def _schedule_decision(self, before: Table, after: Table) -> None:
        decision = after.shell.decision
        if decision is None or decision == before.shell.decision:
            return
        if decision.deadline_unix_ms:
            self.scheduler.schedule_timeout(
                after.table_id, decision.hand, decision.action_number, decision.deadline_unix_ms
            )
        previous = before.shell.decision
        if previous and (previous.hand, previous.action_number) == (
            decision.hand,
            decision.action_number,
        ):
            return  # a time-bank extension: only the timeout moved, the turn is the same
        seat = after.engine.seats[decision.seat]
        if seat is not None and seat.player in after.shell.bots:
            self.scheduler.schedule_bot_turn(
                after.table_id, decision.hand, decision.action_number, decision.seat, seat.player
            )

    # ------------------------------------------------------------------ process steps

    def drive(self, table_id: str, table: Table | None = None, max_steps: int = 200) -> Table:
        """Perform the steps the table needs until it waits for players (from `table`, the
        state this instance just wrote, when given; otherwise from a fresh read). Consecutive
        steps run in memory and are appended together (`_perform`)."""
        table = table or self.load(table_id)
        steps = 0
        while steps < max_steps:
            if process.next_step(table) is None:
                return table
            table, taken = self._perform(table, max_steps - steps)
            steps += max(taken, 1)
        return table

    def keep_going(self, table_id: str, table: Table | None = None) -> None:
        """Drive the process after a command. A dependency that is down does not fail the
        command (it is recorded already): the table is retried in the background, and a hand
        that stays stuck past `void_after_s` is voided with every stake returned."""
        try:
            self.drive(table_id, table)
        except errors.DomainError:
            # (Anything else, a storage error say, reaches the caller, whose retry with the
            # same key finds the command done; the recovery sweep finishes the table.)
            self._retry_later(table_id)

    def _retry_later(self, table_id: str) -> None:
        """Hand the table to the background retrier (`recover` every `retry_interval_s`)."""
        with self._guard:
            self._stalled.setdefault(table_id, time.monotonic())
            if self._retrier is None or not self._retrier.is_alive():
                self._retrier = threading.Thread(
                    target=self._retry_stalled, name="table-retrier", daemon=True
                )
                self._retrier.start()

    def _retry_stalled(self) -> None:
        while True:
            time.sleep(self.retry_interval_s)
            with self._guard:
                stalled = dict(self._stalled)
            if not stalled:
                return
            for table_id, since in stalled.items():
                try:
                    done = self.recover(table_id)
                except errors.NotFound:
                    done = True
                except Exception as exc:
                    if time.monotonic() - since < GIVE_UP_AFTER_VOIDS * self.void_after_s:
                        continue
                    # Still marked in the attention set: the recovery sweep goes on trying.
                    log.warning(
                        "table stays stuck; the recovery sweep retries it",
                        table=table_id,
                        error=repr(exc)[:200],
                    )
                    done = True
                if done:
                    with self._guard:
                        self._stalled.pop(table_id, None)

    def recover(self, table_id: str) -> bool:
        """Finish what the table needs without waiting for a command (the retrier and the
        recovery sweep call it; any instance may): its pending process steps, the hand
        voided (every stake returned) when a step has failed for `void_after_s` since the
        table's last event (a time every instance reads the same, so the limit survives a
        restart), and its current decision's timeout and bot turn, and any requested bot,
        triggered again (each trigger is idempotent: a duplicate changes nothing). True when
        the table then waits for players only; raises what stopped it otherwise."""
        try:
            table = self.drive(table_id)
        except errors.DomainError as exc:
            if self._stuck_for_ms(table_id) < self.void_after_s * 1000:
                raise
            self._void_stuck(table_id, f"{type(exc).__name__}: {exc.message}")
            table = self.drive(table_id)  # the void's own steps (they may fail in turn)
        self._trigger_current(table)
        return process.next_step(table) is None

    def _stuck_for_ms(self, table_id: str) -> int:
        """How long the table's pending step has waited: since its last event was recorded."""
        version = self.current(table_id).version
        last = self.store.read(table_stream(table_id), version, 1)
        return self.clock() - last[0].recorded_at_ms if last else 0

    def _trigger_current(self, table: Table) -> None:
        """Send again the triggers of what the table waits for, those the scheduler has lost
        (a worker or broker failed, or this table's instance before it could send them)."""
        decision = table.shell.decision
        hand = table.engine.hand
        tid = table.table_id
        if decision is not None and hand is not None and hand.number == decision.hand:
            number = decision.action_number
            if decision.deadline_unix_ms:
                self.scheduler.schedule_timeout(
                    tid, decision.hand, number, decision.deadline_unix_ms, only_if_lost=True
                )
            seat = table.engine.seats[decision.seat]
            if seat is not None and seat.player in table.shell.bots:
                self.scheduler.schedule_bot_turn(
                    tid, decision.hand, number, decision.seat, seat.player, only_if_lost=True
                )
        shell = table.shell
        if len(shell.requested_bots) > len(shell.bots_seated()):
            # (some requested bot may never have sat down: a seated one finds itself seated)
            for index, (policy, difficulty) in enumerate(shell.requested_bots):
                self.scheduler.schedule_seat_bot(tid, index, policy, difficulty, only_if_lost=True)

    def _void_stuck(self, table_id: str, reason: str) -> None:
        table = self.load(table_id)
        hand = table.engine.hand
        if hand is None:
            return
        self.execute(
            table_id,
            f"{table_id}/{hand.number}/void",
            "table-service",
            lambda t: _decide(t.engine, cmd.VoidHand(reason)) if t.engine.hand else [],
        )

    def _perform(self, table: Table, max_steps: int) -> tuple[Table, int]:
        """Take the table's next steps one after another in memory, each from the state the
        previous one left (its I/O keyed as if the earlier steps were appended already, so
        the keys do not depend on how steps are grouped), until the table waits for a
        player; then ONE append of all their events (+ the ActionRequested) after the
        version they started from, keyed by the first step. A crash before the append leaves
        nothing recorded: whoever loads the table next redoes the same steps with the same
        keys (the dealer returns the same cards, the ledger the same entries). When a step
        fails, the steps before it are appended and the failure raised (the retrier goes on).
        Returns the table and how many steps were taken."""
        with self._lock(table.table_id):
            base = self.current(table.table_id)
            if base.version != table.version:
                return base, 0  # someone moved the table on: look again
            run = self._take_steps(base, max_steps, local_only=False)
            if not run.events:
                if run.failure is not None:
                    raise run.failure
                return self.load(table.table_id), 0
            folded = self._ask_next(run.table, run.events, base)
            self._mark(table.table_id)
            appended = self._append(base, run.events, run.key, folded)
            if appended is None:
                return self.load(table.table_id), 0
            self._after_append(base, appended)
            if run.failure is not None:
                raise run.failure
            return appended, run.taken

    def _take_steps(self, table: Table, limit: int, local_only: bool) -> _Steps:
        """Take up to `limit` process steps in memory, each from the state the one before left
        (only the side-effect-free ones when `local_only`), stopping at the first that has
        nothing to do or fails (its error is returned, the steps before it kept)."""
        run = _Steps(table)
        while run.taken < limit:
            step = process.next_step(run.table)
            if step is None or (local_only and not process.is_local(step)):
                break
            try:
                step_events = self._step_events(run.table, step)
            except errors.DomainError as exc:
                run.failure = exc
                break
            if not step_events:
                break
            run.key = run.key or process.step_key(run.table, step)
            run.table = fold_events(run.table, step_events, run.table.version + 1)
            run.events += step_events
            run.taken += 1
        return run

    def _ask_next(self, table: Table, events: list[object], before: Table) -> Table:
        """Add the ActionRequested to `events` when `table` waits for a player on a new
        decision (not the one `before` already waited on); the table after."""
        if _same_decision(before, table):
            return table
        asked = self.decision_events(table, table.engine)
        events += asked
        return fold_events(table, asked, table.version + 1)

    def _step_events(self, table: Table, step: process.Step) -> list[object]:
        shell = table.shell
        tid = table.table_id
        try:
            match step:
                case process.PostBuyIn(buy_in):
                    self.ledger.post(buy_in.transfer_key, buy_in.reservation_id, tid)
                    return [events_pb2.BuyInPosted(transfer_key=buy_in.transfer_key)]
                case process.PayCashOut(out):
                    account = shell.account_of(out.player) or self.ledger.player_account(
                        out.player, shell.currency
                    )
                    self.ledger.pay_out(
                        out.transfer_key, tid, account, out.amount, shell.currency, "cash-out"
                    )
                    return [events_pb2.CashOutPosted(transfer_key=out.transfer_key)]
                case process.Settle(hand, rake):
                    key = f"{tid}/{hand}/settle"
                    if rake > 0:
                        self.ledger.rake(key, tid, hand, rake, shell.currency)
                    return [events_pb2.HandSettled(hand=hand, transfer_key=key)]
                case process.Reveal(hand, shuffle_id):
                    reveal = self.dealer.close(shuffle_id, "hand ended")
                    return [
                        events_pb2.ShuffleRevealed(
                            hand=hand, shuffle_id=shuffle_id, reveal_json=reveal
                        )
                    ]
                case process.StartHand(hand):
                    # Shuffles are announced two hands ahead: a shuffle takes entropy
                    # commitments while the hand two before it plays, is sealed when the hand
                    # before it starts (now, for hand + 1) and takes the committed entropies'
                    # reveals during that hand, so the order is fixed at this hand's first
                    # card without any hand waiting (docs/dealer.md, "Player entropy").
                    current = self._announced(shell, tid, hand)
                    following = self._announced(shell, tid, hand + 1)
                    self.dealer.seal(following.shuffle_id)
                    upcoming = self.dealer.open_shuffle(shuffle_id_of(tid, hand + 2))
                    started = _decide(table.engine, cmd.StartHand())
                    committed = events_pb2.ShuffleCommitted(
                        hand=hand,
                        shuffle_id=current.shuffle_id,
                        commitment=current.commitment,
                    )
                    announced = [
                        events_pb2.ShuffleAnnounced(
                            hand=number, shuffle_id=c.shuffle_id, commitment=c.commitment
                        )
                        for number, c in ((hand + 1, following), (hand + 2, upcoming))
                        if shell.upcoming_shuffle(number) is None
                    ]
                    seated = [i for i, s in enumerate(table.engine.seats) if s is not None]
                    refills = [
                        events_pb2.TimeBankRefilled(
                            hand=hand, seat=r.seat, added_ms=r.added_ms, remaining_ms=r.remaining_ms
                        )
                        for r in on_hand_started(shell.banks, shell.bank_rules, hand, seated)
                        if isinstance(r, TimeBankRefilled)
                    ]
                    return [committed, *started, *announced, *refills]
                case process.Deal(hand, request):
                    key = process.step_key(table, step)
                    # One Deal per step: the dealer records the burn as its own BURN deal
                    # (key `<step key>/burn`) in the same append as the step's cards, so its
                    # record still labels every card by what it was dealt for.
                    cards = self.dealer.deal(
                        shell.shuffle_id,
                        request.total - request.burn,
                        key,
                        deal_purpose(table.engine, request),
                        burn=request.burn,
                    )
                    return list(_decide(table.engine, deal_from(request, iter(cards))))
                case process.Reshuffle(hand, request):
                    key = process.step_key(table, step)
                    # The draw that needs it takes more cards than the stub holds: the
                    # dealer refuses a reshuffle the game does not need.
                    assert table.engine.hand is not None
                    needed = table.engine.hand.player(request.seat).awaiting
                    self.dealer.reshuffle(shell.shuffle_id, request.discards, key, needed)
                    command = cmd.ReshuffleDiscards(request.discards)
                    return list(_decide(table.engine, command))
                case process.Rank(hand, request):
                    return list(_decide(table.engine, rank_hands(table.engine, self.ranker)))
        except errors.Unavailable:
            raise
        raise AssertionError(step)

    # ------------------------------------------------------------------ table commands

    def create_table(self, spec: TableSpec, by: str, key: str) -> Table:
        if len(spec.table_id) > MAX_TABLE_ID_LENGTH:
            raise errors.InvalidArgument(
                f"table_id is {len(spec.table_id)} characters; table ids are at most "
                f"{MAX_TABLE_ID_LENGTH} characters (a requested bot's player id, "
                "bot-<policy>-<difficulty %>-<table id>-s<seat>, names its ledger account, "
                "whose name is at most 64 characters)"
            )
        require_key(key)
        check_requested_bots(spec.bots, spec.config.seats)
        check_chip_amounts(spec.config)
        table_id = spec.table_id or f"t{uuid.uuid5(uuid.NAMESPACE_URL, by + '/' + key).hex[:12]}"
        stream = table_stream(table_id)
        created = events_pb2.TableCreated(
            table_id=table_id,
            game="poker",
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
        )
        batch = [created, TableOpened(spec.config)]
        try:
            messages = [codec.to_message(e) for e in batch]
        except ValueError as exc:  # a value protobuf cannot carry: refused before any effect
            raise errors.InvalidArgument(f"table options out of range: {exc}") from exc
        # Only a table that can be recorded gets its escrow account.
        self.ledger.ensure_accounts(table_id, spec.currency)
        self._mark(table_id)  # (its requested bots' seating triggers follow the append)
        try:
            self.store.append(stream, messages, 0, f"{table_id}/create")
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
            self._retry_later(table_id)
        return self.load(table_id)

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

    def seat_of(self, table: Table, player: str) -> int | None:
        for i, s in enumerate(table.engine.seats):
            if s is not None and s.player == player:
                return i
        return None

    def join(
        self,
        table_id: str,
        player: str,
        seat: int,
        amount: int,
        account: str,
        key: str,
        is_bot: bool = False,
        any_account: bool = False,
    ) -> tuple[int, int]:
        """Reserve the buy-in, seat the player (one append), then post it (a process step).
        The buy-in comes from the player's own account unless `any_account` (a service)."""
        table = self.load(table_id)
        own = self.ledger.player_account(player, table.shell.currency)
        if account and account != own and not any_account:
            # A player account's name is its owner's subject (docs/ledger.md).
            raise errors.PermissionDenied(
                f"{player} may not buy in from {account}: players buy in only from their own "
                f"account {own} (or leave account_id empty); only the platform's services "
                "name another account"
            )
        already = self.seat_of(table, player)
        command_key = f"{table_id}/join/{player}/{key}"
        if already is not None and table.shell.version_of_key(command_key) is not None:
            return already, table.shell.version_of_key(command_key) or table.version
        if seat < 0:
            seat = next(
                (i for i, s in enumerate(table.engine.seats) if s is None), len(table.engine.seats)
            )
        account = account or own
        sit = cmd.SitDown(seat, player, amount)
        table, version = self._buy_in(
            table, command_key, sit, seat, player, amount, account, is_bot
        )
        self.keep_going(table_id, table)
        return seat, version

    def top_up(self, table_id: str, player: str, amount: int, key: str) -> int:
        table = self.load(table_id)
        seat = self._own_seat(table, player)
        command_key = f"{table_id}/topup/{player}/{key}"
        done = table.shell.version_of_key(command_key)
        if done is not None:
            return done
        currency = table.shell.currency
        account = table.shell.account_of(player) or self.ledger.player_account(player, currency)
        top_up = cmd.TopUp(seat, amount, player)
        _, version = self._buy_in(table, command_key, top_up, seat, player, amount, account, False)
        self.keep_going(table_id)
        return version

    def _buy_in(
        self,
        table: Table,
        command_key: str,
        command: cmd.SitDown | cmd.TopUp,
        seat: int,
        player: str,
        amount: int,
        account: str,
        is_bot: bool,
    ) -> tuple[Table, int]:
        """Chips onto the table: check the rules, Reserve in the ledger, then one append of
        BuyInReserved + the engine's events (the Post is a process step). A refusal at either
        check voids the hold, so a refused join or top-up never leaves chips reserved."""
        refusal = "seat not taken" if isinstance(command, cmd.SitDown) else "top-up refused"
        try:
            _decide(table.engine, command)  # fail before reserving
        except RuleViolation as violation:
            self._release_orphan(command_key, refusal)
            raise domain_error(violation) from violation
        currency = table.shell.currency
        hold = self.ledger.reserve_buy_in(command_key, table.table_id, account, amount, currency)
        # A retried key gets the ledger's replay: the original reservation, whose status says
        # whether it was voided since (the first attempt was refused) or posted long ago.
        # Seating on such a hold would put chips on the table that never reached its escrow.
        if hold.status != "pending":
            latest = self.load(table.table_id)
            done = latest.shell.version_of_key(command_key)
            if done is not None:  # a concurrent retry of this command already succeeded
                return latest, done
            again = "join" if isinstance(command, cmd.SitDown) else "top up"
            raise errors.FailedPrecondition(
                f"the buy-in of {command_key} was {hold.status} in the ledger by an earlier "
                f"attempt, so it cannot bring chips now: {again} again with a new "
                f"idempotency_key"
            )
        reserved = events_pb2.BuyInReserved(
            seat=seat,
            player=player,
            amount=amount,
            account=account,
            reservation_id=hold.reservation_id,
            transfer_key=f"{command_key}/post",
            is_bot=is_bot,
        )

        def decide(t: Table) -> list[object]:
            return [reserved, *_decide(t.engine, command)]

        try:
            return self.execute(table.table_id, command_key, player, decide)
        except errors.DomainError:
            self.ledger.void(f"{command_key}/void", hold.reservation_id, refusal)
            raise

    def _release_orphan(self, command_key: str, reason: str) -> None:
        """Void a reservation an earlier attempt of this command may have left behind (it
        crashed between the ledger Reserve and the BuyInReserved append). The Reserve's key
        is the command key, which the ledger makes the reservation id, so a retry finds it
        without any record of its own; NotFound means no earlier attempt got that far, and a
        reservation already posted or voided stays as it is (FailedPrecondition). Never hides
        the refusal itself: a ledger that is down leaves the hold for the next retry."""
        with contextlib.suppress(errors.DomainError):
            self.ledger.void(f"{command_key}/void", command_key, reason)

    def _own_seat(self, table: Table, player: str) -> int:
        seat = self.seat_of(table, player)
        if seat is None:
            raise errors.FailedPrecondition(f"{player} has no seat at table {table.table_id}")
        return seat

    def seat_command(
        self, table_id: str, player: str, key: str, make: Callable[[int], cmd.Command]
    ) -> int:
        """SitOut / SitIn / LeaveTable for the caller's own seat."""
        seat = self._own_seat(self.load(table_id), player)
        table, version = self.execute(
            table_id,
            f"{table_id}/{player}/{key}",
            player,
            lambda t: _decide(t.engine, make(seat)),
        )
        self.keep_going(table_id, table)
        return version

    def act(
        self,
        table_id: str,
        player: str,
        command: cmd.Act,
        key: str,
        expected_version: int | None,
    ) -> int:
        with self.receiving_act(table_id, player):
            table, version = self.execute(
                table_id,
                f"{table_id}/act/{player}/{key}",
                player,
                lambda t: _decide(t.engine, command),
                expected_version,
            )
        self.keep_going(table_id, table)
        return version

    @contextlib.contextmanager
    def receiving_act(self, table_id: str, player: str) -> Iterator[int]:
        """Mark an Act of `player` as received now (table clock) until it is applied or
        refused. An Act that reaches the table before the deadline wins over the timeout even
        when the timeout gets the table's lock first: `apply_timeout` answers "not due" while
        such an Act is in flight, and the worker asks again a moment later."""
        entry = (player, self.clock())
        with self._guard:
            self._acting.setdefault(table_id, []).append(entry)
        try:
            yield entry[1]
        finally:
            with self._guard:
                acting = self._acting[table_id]
                acting.remove(entry)
                if not acting:
                    del self._acting[table_id]

    def _act_in_flight(self, table_id: str, player: str, deadline_unix_ms: int) -> bool:
        """Whether this instance is applying an Act of `player` received by the deadline."""
        with self._guard:
            return any(
                who == player and received <= deadline_unix_ms
                for who, received in self._acting.get(table_id, ())
            )

    def _announced(self, shell: ShellState, table_id: str, hand: int) -> Commitment:
        """The shuffle announced for `hand`, or one created now (the first hands of a table,
        whose shuffles were never announced: they take no player entropy)."""
        found = shell.upcoming_shuffle(hand)
        if found is not None:
            return Commitment(*found)
        return self.dealer.open_shuffle(shuffle_id_of(table_id, hand))

    def contribute(
        self, table_id: str, player: str, hand: int, commitment: bytes, entropy: bytes
    ) -> tuple[Commitment, int, int]:
        """Relay a seated player's entropy round to the dealer, under the player's own name:
        its `commitment` to the shuffle that still takes them (hand last + 2), or the committed
        `entropy` to the sealed shuffle of the next hand (hand last + 1). Returns the shuffle,
        the hand and the commitment's index; the dealer refuses anything out of phase."""
        if bool(commitment) == bool(entropy):
            raise errors.InvalidArgument(
                "send either entropy_commitment (to the shuffle two hands ahead) or entropy "
                "(the committed entropy, to the next hand's sealed shuffle)"
            )
        table = self.load(table_id)
        self._own_seat(table, player)
        shell = table.shell
        target = table.engine.last_hand + (2 if commitment else 1)
        hand = hand or target
        found = shell.upcoming_shuffle(hand)
        if hand != target or found is None:
            phase = "takes commitments" if commitment else "takes reveals"
            raise errors.FailedPrecondition(
                f"hand {hand} of table {table_id} does not take this now: the shuffle that "
                f"{phase} is hand {target}'s"
                + ("" if shell.upcoming_shuffle(target) else " (not announced yet)")
            )
        shuffle = Commitment(*found)
        if commitment:
            index = self.dealer.contribute(shuffle.shuffle_id, player, commitment)
        else:
            index = self.dealer.reveal(shuffle.shuffle_id, player, entropy)
        return shuffle, hand, index

    def apply_timeout(self, table_id: str, hand: int, action_number: int) -> tuple[bool, int]:
        """Default action for exactly that decision; a stale or repeated request is a no-op.

        The table's own clock decides whether the recorded deadline has passed: a trigger
        that arrives early (a worker's clock ahead, a replayed task) is refused with
        "not due until <deadline>", which the workers treat as "retry later".
        """
        table = self.load(table_id)
        decision = table.shell.decision
        if decision is None or (decision.hand, decision.action_number) != (hand, action_number):
            return False, table.version
        self._require_due(table_id, decision.deadline_unix_ms)
        due = decision.deadline_unix_ms

        def decide(t: Table) -> list[object]:
            current = t.shell.decision
            if current is None or (
                current.hand,
                current.action_number,
                current.deadline_unix_ms,
            ) != (
                hand,
                action_number,
                due,
            ):
                return []  # made, moved on, or already extended (the new deadline's job)
            self._require_due(table_id, current.deadline_unix_ms)
            seat = t.engine.seats[current.seat]
            if seat is not None and self._act_in_flight(
                table_id, seat.player, current.deadline_unix_ms
            ):
                raise errors.FailedPrecondition(
                    f"timeout of table {table_id} not due: {seat.player}'s action, received "
                    f"by the deadline {current.deadline_unix_ms}, is being applied; retry"
                )
            extension = on_deadline(
                t.shell.banks, t.shell.bank_rules, current.seat, hand, action_number, due
            )
            if extension and isinstance(extension[0], TimeBankExtended):
                granted = extension[0]
                return [
                    events_pb2.TimeBankExtended(
                        hand=hand,
                        seat=granted.seat,
                        action_number=action_number,
                        used_ms=granted.used_ms,
                        remaining_ms=granted.remaining_ms,
                        deadline_unix_ms=granted.deadline_unix_ms,
                    )
                ]
            return list(_decide(t.engine, cmd.TimeOut(current.seat, hand)))

        # One key per deadline: an extension and the final timeout are separate commands.
        key = f"{table_id}/{hand}/timeout/{action_number}/{due}"
        before = table.version
        table, version = self.execute(table_id, key, "timeout", decide)
        self.keep_going(table_id, table)
        return version != before, version

    def _require_due(self, table_id: str, deadline_unix_ms: int) -> None:
        now = self.clock()
        if deadline_unix_ms and now < deadline_unix_ms:
            raise errors.FailedPrecondition(
                f"timeout of table {table_id} not due until {deadline_unix_ms} "
                f"(unix ms; {deadline_unix_ms - now} ms from now): retry then"
            )


def deal_purpose(engine: TableState, request: NeedCards) -> str:
    """What the dealer records the (non-burn) cards of `request` as: hole, board, spit or
    draw (a draw replaces discards; hole cards are the first cards of a DealHole phase)."""
    if all(target is None for target, _ in request.targets):
        phase = engine.phase()
        return "spit" if isinstance(phase, DealBoard) and phase.name == "spit" else "board"
    return "draw" if isinstance(engine.phase(), Draw) else "hole"


def _decide(engine: TableState, command: cmd.Command) -> list[Event]:
    from services.games.poker.rules import decide

    return decide(engine, command)


def _same_decision(before: Table, after: Table) -> bool:
    """Whether `after` waits on the decision already requested in `before`: the hand is
    untouched (another player joined, sat out, topped up; a buy-in was posted) and the
    recorded request is this seat's. Requesting it again would restart the seat's clock
    and give the decision a new number, making its scheduled timeout stale; its deadline
    moves only by a time-bank extension."""
    hand, decision = after.engine.hand, before.shell.decision
    if hand is None or decision is None:
        return False
    if (decision.hand, decision.seat) != (hand.number, hand.to_act):
        return False  # (an action moved the turn on: no need to compare the hands)
    # Commands that leave the hand alone keep its very object (the reducer replaces only
    # what an event changes), so `is` answers at once; `==` is the fallback for a copy.
    previous = before.engine.hand
    return hand is previous or hand == previous


def fold_one(table: Table, version: int, event: object, now: int = 0) -> Table:
    engine = table.engine
    if not isinstance(event, Message):
        engine = apply(engine, event)  # type: ignore[arg-type]
    shell = fold_shell(table.shell, version, event)
    return Table(table.table_id, version, engine, shell)  # (dataclasses.replace is slower)


def fold_events(table: Table, events: Sequence[object], first_version: int) -> Table:
    """`table` after `events`, the first at `first_version` (the rest follow one by one)."""
    for offset, event in enumerate(events):
        table = fold_one(table, first_version + offset, event)
    return table


def fold_recorded(
    table_id: str, recorded: Sequence[RecordedEvent], table: Table | None = None
) -> Table:
    """Fold stored events into a table (from scratch when `table` is None)."""
    for record in recorded:
        event = codec.from_message(record.message)
        if table is None:
            if not isinstance(event, events_pb2.TableCreated):
                raise errors.FailedPrecondition(f"table {table_id}: stream does not start right")
            table = Table(table_id, 0, new_table(_placeholder_config()), ShellState())
        table = fold_one(table, record.version, event)
    assert table is not None
    return table


def _placeholder_config() -> TableConfig:
    from services.games.poker.catalog import TEXAS_HOLDEM

    return TableConfig(game=TEXAS_HOLDEM, seats=2)
