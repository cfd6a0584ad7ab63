"""The table shell's I/O as values, so one command path serves both runtimes.

The command path (commands.py) and the process steps (steps.py) are written once, as
generators: where they need the world they `yield` an effect (read the table, mark it, append,
schedule its triggers, call the dealer or the ledger, rank hands) and are sent back its
result (or have its error thrown in, where it was raised). Everything between two effects
(checking keys and versions, the rules deciding, folding, building the batch) is the same
code whichever runtime interprets the effects:

- `SyncEffects` (here) performs each effect with the blocking adapters, in the caller's
  thread (the thread-pool server, the background retrier, the recovery sweep);
- `aio_commands.AioEffects` awaits each one on the event loop (grpc.aio's commands).

So no rule of the command path (answering retries from the remembered keys, the expected
version, one append per command, deterministic step keys) is written twice.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from services.games.ranking import HandRanker, RankRequest, SeatRank, rank_with
from services.table.decisions import Decisions
from services.table.ports import DealerPort, LedgerPort
from services.table.shell import Table
from services.table.tables import Tables

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Load:
    """The table: the cached one (possibly behind other writers) unless `fresh`, when any
    newer events are read first. Answers a Table (NotFound raised in if there is none)."""

    table_id: str
    fresh: bool


@dataclass(frozen=True, slots=True)
class Confirm:
    """Before answering a retry from the table's remembered keys: wait until the table's
    events so far are on the replicas the store waits for (its first attempt may be on the
    master alone; EventStore.wait_for_replicas). Answers None."""

    table_id: str


@dataclass(frozen=True, slots=True)
class Mark:
    """Mark the table in the attention set before writing it (attention.py). Answers None."""

    table_id: str


@dataclass(frozen=True, slots=True)
class Append:
    """ONE append of `batch` after `table`'s version under `key` (tables.Tables.append's
    rules). Answers the table after it, or None when someone else wrote first."""

    table: Table
    batch: Sequence[object]
    key: str
    folded: Table | None = None


@dataclass(frozen=True, slots=True)
class Schedule:
    """The triggers of the decisions `after` records and `before` did not
    (Decisions.after_append: never fails the command). Answers None."""

    before: Table
    after: Table


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the dealer's or the ledger's port (`method` of DealerPort / LedgerPort,
    the same name on their asyncio twins). Answers what the port returns."""

    port: Literal["dealer", "ledger"]
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    # How the process steps may send a dealer call in a batch with the ones after it
    # (steps.py, AdvanceShuffles): "recorded" (its answer is only recorded: the batch's plan
    # goes on past it), "last" (its answer steers what follows: the plan ends with it), or
    # "" (never batched).
    batch: Literal["", "recorded", "last"] = ""


@dataclass(frozen=True, slots=True)
class Rank:
    """Rank hands for a showdown. Answers a tuple of SeatRank, one per request."""

    requests: tuple[RankRequest, ...]


Effect = Load | Confirm | Mark | Append | Schedule | Call | Rank
# A part of the command path: yields effects, is sent their results, returns a T.
Script = Generator[Effect, Any, T]


def rank_all(ranker: HandRanker, requests: Sequence[RankRequest]) -> tuple[SeatRank, ...]:
    return tuple(rank_with(ranker, asked) for asked in requests)


class SyncEffects:
    """Performs the effects with the blocking adapters, in the calling thread."""

    def __init__(
        self,
        tables: Tables,
        decisions: Decisions,
        dealer: DealerPort,
        ledger: LedgerPort,
        ranker: HandRanker,
    ) -> None:
        self.tables = tables
        self.decisions = decisions
        self.ports: dict[str, Any] = {"dealer": dealer, "ledger": ledger}
        self.ranker = ranker

    def perform(self, effect: Effect) -> Any:
        tables = self.tables
        if isinstance(effect, Load):
            load = tables.load if effect.fresh else tables.current
            return load(effect.table_id)
        if isinstance(effect, Call):
            return getattr(self.ports[effect.port], effect.method)(*effect.args, **effect.kwargs)
        if isinstance(effect, Append):
            return tables.append(effect.table, effect.batch, effect.key, effect.folded)
        if isinstance(effect, Rank):
            return rank_all(self.ranker, effect.requests)
        if isinstance(effect, Mark):
            tables.mark(effect.table_id)
            return None
        if isinstance(effect, Confirm):
            tables.confirm(effect.table_id)
            return None
        self.decisions.after_append(effect.before, effect.after)
        return None

    def run(self, script: Script[T]) -> T:
        """Run `script` to its end, performing each effect it yields; an effect's error is
        thrown into the script where it yielded it."""
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = script.send(value) if error is None else script.throw(error)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            try:
                value, error = self.perform(effect), None
            except Exception as exc:
                value, error = None, exc
