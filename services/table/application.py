"""The table application: one object wiring the table shell's parts, one module each.

- tables.py: load (cached state + newer events), lock, ONE guarded append, attention marks;
- commands.py: the command path (`execute`: decide on the loaded state, append once);
- decisions.py: the decisions a table waits for, recorded and triggered;
- steps.py: process steps (ledger postings, dealer cards, reveals, ranks), taken in memory
  and appended together;
- buy_ins.py: joining and topping up (the ledger's two-phase transfer around an append);
- timeouts.py: deadlines that passed, time banks, moves received in time;
- retrier.py: the background retrier, recovery and voiding a round that stays stuck;
- creation.py: CreateTable and ListTables; entropy.py: players' entropy for the dealer.

Every command follows one path: load the table, answer a retry from the remembered idempotency
keys, let the rules decide, append the events in ONE append guarded by the loaded version and
a deterministic key; the process steps that follow are keyed by the version they start from,
so a crash is finished by whoever loads the table next and two instances never apply a step
twice. The composition root (server.py) builds it with its adapters.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.games.errors import NotAllowedNow
from services.games.ranking import HandRanker
from services.shared import errors
from services.shared.eventstore import EventStore
from services.table.attention import AttentionSet, InMemoryAttentionSet
from services.table.bot_requests import MAX_BOT_CHIPS_PER_TABLE
from services.table.buy_ins import BuyIns, ToppedUp, own_seat, seat_of
from services.table.command_keys import scoped
from services.table.commands import CommandPath, Decider
from services.table.creation import TableCreation, TablePage, TableSpec, require_key
from services.table.decisions import Decisions
from services.table.entropy import Entropy
from services.table.entropy_window import EntropySeen, EntropyTiming
from services.table.folding import DIRECTORY_STREAM, fold_recorded, table_stream
from services.table.games.catalog import CATALOG, Catalog
from services.table.ports import Commitment, DealerPort, LedgerPort, SchedulerPort
from services.table.process import next_step
from services.table.retrier import Retrier
from services.table.shell import Table
from services.table.steps import ProcessSteps
from services.table.tables import Appended, Tables
from services.table.timeouts import Timeouts

__all__ = [
    "DIRECTORY_STREAM",
    "Decider",
    "TableApplication",
    "TablePage",
    "TableSpec",
    "act_decider",
    "act_key",
    "fold_recorded",
    "require_key",
    "table_stream",
]


@dataclass(frozen=True, slots=True)
class Left:
    """What LeaveTable did: whether the seat is free now, and the table's version after it."""

    left: bool
    version: int


@dataclass(frozen=True, slots=True)
class Closed:
    """What CloseTable did: the table's version after it, and whether it is closed already
    (every seat paid out) or still closing."""

    version: int
    closed: bool


def now_ms() -> int:
    return int(time.time() * 1000)


def act_key(table_id: str, player: str, key: str) -> str:
    """The command key of a player's move (its idempotency key in the table's namespace)."""
    return f"{table_id}/act/{scoped(player)}/{scoped(key)}"


def act_decider(
    table_id: str,
    player: str,
    command: c.Move | Callable[[Table, int], c.Move],
    seat: int | None,
) -> Decider:
    """The rules deciding a player's move: `command` is the move, or makes it for `seat`
    (None: the player's own, found on the state the move is decided on)."""

    def decide(t: Table) -> list[object]:
        if t.shell.closing and t.game.rounds(t.state).current is None:
            raise NotAllowedNow(
                f"table {table_id} is closing: no new round starts; its seats are being paid out"
            )
        if isinstance(command, c.Move):
            return list(t.game.rules.decide(t.state, command))
        acting = seat_of(t, player) if seat is None else seat
        if acting is None:
            raise NotAllowedNow(f"{player} has no seat at table {table_id}: join it first")
        return list(t.game.rules.decide(t.state, command(t, acting)))

    return decide


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
        catalog: Catalog = CATALOG,
        max_bot_chips_per_table: int = MAX_BOT_CHIPS_PER_TABLE,
        entropy_timing: EntropyTiming | None = None,
        idle_shuffles_s: float = 0.0,
    ) -> None:
        self.store = store
        self.catalog = catalog
        self.dealer = dealer
        self.ledger = ledger
        self.ranker = ranker
        self.scheduler = scheduler
        self.clock = clock
        self.void_after_s = void_after_s
        self.retry_interval_s = retry_interval_s
        self.attention: AttentionSet = attention or InMemoryAttentionSet()
        self.recovery_grace_s = recovery_grace_s
        self.tables = Tables(store, self.attention, recovery_grace_s, clock, catalog)
        self.retrier = Retrier(
            self.tables, clock, void_after_s, retry_interval_s, idle_shuffles_s=idle_shuffles_s
        )
        self.decisions = Decisions(scheduler, clock, self.retrier.retry_later)
        seen = EntropySeen()
        self.steps = ProcessSteps(
            self.tables, self.decisions, dealer, ledger, ranker, entropy_timing, seen
        )
        self.commands = CommandPath(self.tables, self.decisions, self.steps)
        self.retrier.steps = self.steps
        self.retrier.commands = self.commands
        self.retrier.decisions = self.decisions
        self.tables.unfinished = lambda table: next_step(table) is not None
        self.tables.on_unfinished = self.retrier.retry_later
        self.buy_ins = BuyIns(self.tables, self.commands, self.retrier, ledger)
        self.timeouts = Timeouts(self.tables, self.commands, self.retrier, clock)
        self.creation = TableCreation(
            self.tables, ledger, scheduler, self.retrier, max_bot_chips_per_table
        )
        self.entropy = Entropy(self.tables, dealer, seen, self.keep_going)

    @property
    def on_appended(self) -> Appended | None:
        """Told of every append this instance makes (the composition root wires the local
        watchers' fan-out here)."""
        return self.tables.on_appended

    @on_appended.setter
    def on_appended(self, listener: Appended | None) -> None:
        self.tables.on_appended = listener

    # ------------------------------------------------------------------ reading

    def load(self, table_id: str) -> Table:
        return self.tables.load(table_id)

    def current(self, table_id: str) -> Table:
        return self.tables.current(table_id)

    def forget(self, table_id: str) -> None:
        self.tables.forget(table_id)

    def list_tables(self, page_token: str, page_size: int) -> TablePage:
        return self.creation.list_tables(page_token, page_size)

    def seat_of(self, table: Table, player: str) -> int | None:
        return seat_of(table, player)

    # ------------------------------------------------------------------ commands

    def execute(
        self,
        table_id: str,
        key: str,
        by: str,
        decider: Decider,
        expected_version: int | None = None,
    ) -> tuple[Table, int]:
        return self.commands.execute(table_id, key, by, decider, expected_version)

    def create_table(self, spec: TableSpec, by: str, key: str) -> Table:
        return self.creation.create_table(spec, by, key)

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
        seated = self.buy_ins.join(
            table_id, player, seat, amount, account, key, is_bot, any_account
        )
        return seated.seat, seated.version

    def top_up(self, table_id: str, player: str, amount: int, key: str) -> ToppedUp:
        return self.buy_ins.top_up(table_id, player, amount, key)

    def seat_command(
        self, table_id: str, player: str, key: str, make: Callable[[int], c.SeatCommand]
    ) -> int:
        """SitOut / SitIn for the caller's own seat; the table's version after it."""
        return self._own_seat_command(table_id, player, key, make)[1]

    def leave(self, table_id: str, player: str, key: str) -> Left:
        """LeaveTable: the seat freed now, or after the current round."""
        table, version = self._own_seat_command(
            table_id, player, key, lambda seat: c.Leave(seat, player)
        )
        return Left(seat_of(table, player) is None, version)

    def close(
        self,
        table_id: str,
        by: str,
        key: str,
        privileged: bool,
        expected_version: int | None = None,
    ) -> Closed:
        """CloseTable: record TableClosing (once: closing a closing table changes nothing);
        the process lets every seat go once the round in play ends and pays it out. Only the
        table's creator may close it, or a `privileged` caller (a service or an admin)."""
        table = self.load(table_id)
        if not privileged and by != table.shell.created_by:
            raise errors.PermissionDenied(
                f"{by} may not close table {table_id}: only the player who created it "
                f"({table.shell.created_by}), an admin or a service closes a table"
            )

        def decide(t: Table) -> list[object]:
            if t.shell.closing:
                return []
            return [events_pb2.TableClosing(closed_by=by)]

        table, version = self.execute(
            table_id, f"{table_id}/close/{scoped(by)}/{scoped(key)}", by, decide, expected_version
        )
        table = self.keep_going(table_id, table) or table
        return Closed(version, table.shell.closed)

    def _own_seat_command(
        self, table_id: str, player: str, key: str, make: Callable[[int], c.SeatCommand]
    ) -> tuple[Table, int]:
        seat = own_seat(self.load(table_id), player)
        table, version = self.execute(
            table_id,
            f"{table_id}/{scoped(player)}/{scoped(key)}",
            player,
            lambda t: t.game.rules.decide(t.state, make(seat)),
        )
        return self.keep_going(table_id, table) or table, version

    def act(
        self,
        table_id: str,
        player: str,
        command: c.Move | Callable[[Table, int], c.Move],
        key: str,
        expected_version: int | None,
        seat: int | None = None,
    ) -> int:
        """One move. `command` is the move, or makes it for `seat` (None: the player's own,
        found on the state the move is decided on: no read of its own) at this table."""
        with self.receiving_act(table_id, player):
            table, version = self.execute(
                table_id,
                act_key(table_id, player, key),
                player,
                act_decider(table_id, player, command, seat),
                expected_version,
            )
        self.keep_going(table_id, table)
        return version

    def report(
        self, table_id: str, dealer: str, key: str, report: c.DealtCard | c.Irregularity
    ) -> tuple[int, Table]:
        """A live dealer's report (ReportCard / ReportIrregularity), decided by the game's
        rules like any command; the table's version after it, and the table once the steps
        it lets run have run (as far as they could)."""
        table, version = self.execute(
            table_id,
            f"{table_id}/report/{scoped(dealer)}/{scoped(key)}",
            dealer,
            lambda t: list(t.game.rules.decide(t.state, c.Report(report, dealer))),
        )
        return version, self.keep_going(table_id, table) or table

    def receiving_act(self, table_id: str, player: str) -> contextlib.AbstractContextManager[int]:
        """Mark a move of `player` as received now until it is applied (timeouts.py)."""
        return self.timeouts.receiving_act(table_id, player)

    def apply_timeout(self, table_id: str, hand: int, action_number: int) -> tuple[bool, int]:
        return self.timeouts.apply_timeout(table_id, hand, action_number)

    def contribute(
        self, table_id: str, player: str, hand: int, commitment: bytes, entropy: bytes
    ) -> tuple[Commitment, int, int]:
        return self.entropy.contribute(table_id, player, hand, commitment, entropy)

    # ------------------------------------------------------------------ the process

    def drive(self, table_id: str, table: Table | None = None, max_steps: int = 200) -> Table:
        return self.steps.drive(table_id, table, max_steps)

    def keep_going(self, table_id: str, table: Table | None = None) -> Table | None:
        return self.retrier.keep_going(table_id, table)

    def recover(self, table_id: str) -> bool:
        return self.retrier.recover(table_id)
