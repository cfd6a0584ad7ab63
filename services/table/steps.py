"""Process steps: what a table needs from the outside world between players' decisions
(ledger postings, dealer shuffles and cards, reveals, hand ranks), taken and recorded.

`drive` performs the steps the table needs until it waits for players. Consecutive steps run
in memory, each from the state the previous one left (its I/O keyed as if the earlier steps
were appended already, so the keys do not depend on how steps are grouped), and are appended
together once, keyed by the first step. A crash before that append leaves nothing recorded:
whoever loads the table next redoes the same steps with the same keys (the dealer returns the
same cards, the ledger the same entries), and two instances never apply a step twice.

The steps are scripts (effects.py): each dealer, ledger or ranker call is an effect the
runtime performs, blocking here (`drive`, `perform`) or awaited on the event loop
(aio_commands.py), so both runtimes take the same steps with the same keys.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, cast

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.games.cardtext import Card
from services.games.errors import RuleViolation
from services.games.ranking import HandRanker, SeatRank
from services.games.timebank import TimeBankRefilled, on_hand_started
from services.shared import errors
from services.table import process
from services.table.decisions import Decisions
from services.table.effects import Append, Call, Load, Mark, Rank, Schedule, Script, SyncEffects
from services.table.entropy_window import NO_WAIT, EntropySeen, EntropyTiming, settle
from services.table.folding import fold_events
from services.table.ports import STANDARD_DECK, Commitment, DealerPort, LedgerPort
from services.table.process import transfer_key
from services.table.reveals import public_reveal, seed_is_public
from services.table.shell import DECK, Announced, ShellState, Table
from services.table.tables import Tables


@dataclass(slots=True)
class StepRun:
    """Process steps taken in memory: the table they make, their events, the first step's
    key (the batch's idempotency key), how many, and the error that stopped them, if any."""

    table: Table
    events: list[object] = field(default_factory=list)
    key: str = ""
    taken: int = 0
    failure: errors.DomainError | None = None


@dataclass(slots=True)
class Batch:
    """A run's AdvanceShuffles batch: whether it was planned, and the dealer calls the run's
    steps are still to make with the answers the batch brought back, in order."""

    planned: bool = False
    ahead: deque[tuple[Call, Any]] = field(default_factory=deque)


class ProcessSteps:
    def __init__(
        self,
        tables: Tables,
        decisions: Decisions,
        dealer: DealerPort,
        ledger: LedgerPort,
        ranker: HandRanker,
        timing: EntropyTiming | None = None,
        seen: EntropySeen | None = None,
    ) -> None:
        self.tables = tables
        self.decisions = decisions
        self.effects = SyncEffects(tables, decisions, dealer, ledger, ranker)
        self.timing = timing or NO_WAIT
        self.seen = seen or EntropySeen()

    def drive(self, table_id: str, table: Table | None = None, max_steps: int = 200) -> Table:
        """Perform the steps the table needs until it waits for players (from `table`, the
        state this instance just wrote, when given; otherwise from a fresh read). Consecutive
        steps run in memory and are appended together (`perform`)."""
        table = table or self.tables.load(table_id)
        steps = 0
        while steps < max_steps:
            if process.next_step(table) is None:
                return table
            table, taken = self.perform(table, max_steps - steps)
            steps += max(taken, 1)
        return table

    def perform(self, table: Table, max_steps: int) -> tuple[Table, int]:
        """Take the table's next steps one after another in memory until the table waits for
        a player; then ONE append of all their events (+ the ActionRequested) after the
        version they started from, keyed by the first step. When a step fails, the steps
        before it are appended and the failure raised (the retrier goes on). Returns the
        table and how many steps were taken."""
        with self.tables.lock(table.table_id):
            return self.effects.run(self.performing(table, max_steps))

    def performing(self, table: Table, max_steps: int) -> Script[tuple[Table, int]]:
        """`perform`'s script (the caller holds the table's lock)."""
        tid = table.table_id
        base: Table = yield Load(tid, fresh=False)
        if base.version != table.version:
            return base, 0  # someone moved the table on: look again
        run = yield from self.taking(base, max_steps, local_only=False)
        if not run.events:
            if run.failure is not None:
                raise run.failure
            return (yield Load(tid, fresh=True)), 0
        folded = self.decisions.ask_next(run.table, run.events, base)
        yield Mark(tid)
        appended: Table | None = yield Append(base, run.events, run.key, folded)
        if appended is None:
            return (yield Load(tid, fresh=True)), 0
        yield Schedule(base, appended)
        if run.failure is not None:
            raise run.failure
        return appended, run.taken

    def take(self, table: Table, limit: int, local_only: bool) -> StepRun:
        return self.effects.run(self.taking(table, limit, local_only))

    def taking(self, table: Table, limit: int, local_only: bool) -> Script[StepRun]:
        """Take up to `limit` process steps in memory, each from the state the one before left
        (only the side-effect-free ones when `local_only`), stopping at the first that has
        nothing to do or fails (its error is returned, the steps before it kept)."""
        run = StepRun(table)
        # One reading of the clock for the whole run, so a batch's plan (`_plan`) takes the
        # very steps the run then takes.
        now = self.tables.clock()
        batch = Batch()
        while run.taken < limit:
            step = process.next_step(run.table)
            if step is None or (local_only and not process.is_local(step)):
                break
            try:
                step_events = yield from self._batched(run, step, limit, now, batch)
            except errors.DomainError as exc:
                run.failure = exc
                break
            if not step_events:
                break
            run.key = run.key or process.step_key(run.table, step)
            run.table = fold_events(run.table, step_events, run.table.version + 1)
            run.events += step_events
            run.taken += 1
            if isinstance(step, process.Withdraw):
                break  # (recorded before the dealer closes them: see process.Withdraw)
        return run

    def _batched(
        self, run: StepRun, step: process.Step, limit: int, now: int, batch: Batch
    ) -> Script[list[object]]:
        """`step`'s events, its dealer calls sent together with the run's next ones where
        that can be known ahead (a hand's boundary: the last hand's close, the next shuffles'
        seal and creation and the first cards, one AdvanceShuffles instead of four calls).

        At the run's first dealer call that may be batched, `_plan` takes the steps ahead in
        memory to learn the calls they will make; those go out as ONE batch, and each call of
        the steps is then answered from it in turn. Every call keeps its own idempotency
        (the deal its step's key), so a retried or replayed batch, or a crash after it, deals
        no card twice; a batch that fails leaves every call to go out alone, failing where
        it fails as it would have without the batch."""
        script = self._step_events(run.table, step, now)
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = script.send(value) if error is None else script.throw(error)
            except StopIteration as done:
                return cast(list[object], done.value)
            if isinstance(effect, Call) and effect.port == "dealer":
                # (a run whose first such call steers what follows batches nothing with it)
                if not batch.planned and effect.batch == "recorded":
                    batch.planned = True
                    calls = self._plan(run.table, step, limit - run.taken, now)
                    if len(calls) > 1 and calls[0] == effect:
                        try:
                            sent = tuple((c.method, c.args, c.kwargs) for c in calls)
                            answers = yield Call("dealer", "advance", (sent,))
                            batch.ahead.extend(zip(calls, answers, strict=True))
                        except errors.DomainError:
                            pass  # each call goes out alone (and fails where it fails)
                if batch.ahead:
                    expected, answer = batch.ahead.popleft()
                    if expected == effect:
                        value, error = answer, None
                        continue
                    # (never expected: the plan took these very steps; the rest go alone)
                    batch.ahead.clear()
            try:
                value, error = (yield effect), None
            except Exception as exc:
                value, error = None, exc

    def _plan(self, table: Table, step: process.Step, limit: int, now: int) -> list[Call]:
        """The dealer calls the next `limit` steps (from `step`) will make, as far as they can
        be known before any is made: the steps are taken in memory with placeholders for
        the answers they only record (a reveal, a commitment, who committed to a shuffle a
        round ahead) up to the first call whose answer steers what follows (cards dealt, a
        seal of the round that is next), or any other effect, or the step that stops the
        run. Placeholders never reach the record: the run takes the steps again with the
        batch's real answers."""
        calls: list[Call] = []
        for _ in range(limit):
            script = self._step_events(table, step, now)
            value: Any = None
            try:
                while True:
                    effect = script.send(value)
                    if not (isinstance(effect, Call) and effect.port == "dealer" and effect.batch):
                        return calls
                    calls.append(effect)
                    if effect.batch == "last":
                        return calls
                    value = _placeholder(effect)
            except StopIteration as done:
                events: list[object] = done.value
            except Exception:  # the step stops the run here (whatever stops it)
                return calls
            finally:
                script.close()
            if not events:
                return calls
            table = fold_events(table, events, table.version + 1)
            following = process.next_step(table)
            if following is None or isinstance(following, process.Withdraw):
                return calls
            step = following
        return calls

    def _step_events(self, table: Table, step: process.Step, now: int) -> Script[list[object]]:
        """The events of one step: its I/O done under the step's key, then what it means to
        the shell and (for a game's request) the game's own events answering it."""
        shell = table.shell
        tid = table.table_id
        if isinstance(step, process.PostBuyIn):
            buy_in = step.buy_in
            yield Call("ledger", "post", (buy_in.transfer_key, buy_in.reservation_id, tid))
            return [events_pb2.BuyInPosted(transfer_key=buy_in.transfer_key)]
        if isinstance(step, process.PayCashOut):
            out = step.cash_out
            account: str = shell.account_of(out.player) or (
                yield Call("ledger", "player_account", (out.player, shell.currency))
            )
            args = (out.transfer_key, tid, account, out.amount, shell.currency, "cash-out")
            yield Call("ledger", "pay_out", args)
            return [events_pb2.CashOutPosted(transfer_key=out.transfer_key)]
        if isinstance(step, process.CloseSeat):
            leave = c.Leave(step.seat, step.player)
            try:
                return list(table.game.rules.decide(table.state, leave))
            except RuleViolation as violation:
                raise errors.FailedPrecondition(
                    f"table {tid}: the game refused to let seat {step.seat} go at the close: "
                    f"{violation.message}"
                ) from violation
        if isinstance(step, process.Withdraw):
            return [
                events_pb2.ShuffleWithdrawn(
                    hand=u.round,
                    shuffle_id=u.shuffle_id,
                    name=_stored_name(u.name),
                    reason=step.reason,
                )
                for u in step.shuffles
            ]
        if isinstance(step, process.RevealAhead):
            u = step.shuffle
            withdrawn = u in shell.withdrawn
            reason = (
                "withdrawn before its round" if withdrawn else "the table closed before its round"
            )
            reveal: str = yield Call("dealer", "close", (u.shuffle_id, reason), batch="recorded")
            revealed: list[object] = [
                events_pb2.ShuffleRevealed(
                    hand=u.round,
                    shuffle_id=u.shuffle_id,
                    reveal_json=reveal,
                    name=_stored_name(u.name),
                    unused=True,
                )
            ]
            if withdrawn:
                # (closed unused: nothing of anyone's to hide, so its seed is public)
                public = public_reveal(reveal, u.shuffle_id, seed_is_public(0, unused=True))
                revealed += _forgotten(table, u, public)
            return revealed
        request = step.request
        answer: c.ChanceAnswer | None
        if isinstance(request, c.StartRound):
            sealed = yield from self._settling(table, request.round, now)
            if sealed:
                return sealed  # (the round starts once its reveals are in)
            envelope, answer, refills = yield from self._start(table, request.round, now)
        else:
            key = process.step_key(table, step)
            envelope, answer = yield from self._fetch(table, request, key, now)
            refills = []
        if answer is None:
            return envelope  # the shell's own step towards the answer (an entropy window)
        try:
            answered = list(table.game.rules.decide(table.state, answer))
        except RuleViolation as violation:
            # An answer the game refuses (a dealer that dealt the wrong cards): the step is
            # retried, and a round that stays stuck is voided.
            raise errors.FailedPrecondition(
                f"table {tid}: the game refused {type(answer).__name__}: {violation.message}"
            ) from violation
        if not answered:
            return []  # (answered already: nothing moves on)
        return [*envelope, *answered, *refills]

    def _settling(
        self, table: Table, round_: int, now: int, name: str | None = None
    ) -> Script[list[object]]:
        """Settle the shuffles announced for `round_` (only `name`, when given) before the
        round deals from them (entropy_window.py): the first one due to be sealed is sealed
        now (its ShuffleSealed returned); [] once every one is settled; EntropyWindowOpen
        while the round must wait for its players' entropy."""
        seated = frozenset(
            s.player
            for s in table.game.rules.seats(table.state)
            if not s.sitting_out and s.stack > 0
        )
        for u in table.shell.upcoming:
            if u.round != round_ or (name is not None and u.name != name):
                continue
            if settle(u, now, seated, self.seen.of(u.shuffle_id)) == "seal":
                # (who committed decides how long the round waits: the batch ends here)
                committed: tuple[str, ...] = yield Call(
                    "dealer", "seal", (u.shuffle_id,), batch="last"
                )
                return [self._sealed(u.round, u.shuffle_id, u.name, committed, now)]
        return []

    def _sealed(
        self, round_: int, shuffle_id: str, name: str, committed: tuple[str, ...], now: int
    ) -> events_pb2.ShuffleSealed:
        return events_pb2.ShuffleSealed(
            hand=round_,
            shuffle_id=shuffle_id,
            name=_stored_name(name),
            reveal_until_unix_ms=now + self.timing.reveal_ms,
            committed=committed,
        )

    def _fetch(
        self, table: Table, request: c.ChanceRequest, key: str, now: int
    ) -> Script[tuple[list[object], c.ChanceAnswer | None]]:
        """Do what the game asked for; the shell's own events recording it, and the answer."""
        tid = table.table_id
        if isinstance(request, c.DrawCards):
            # One deal per step: the dealer records the burn as its own BURN deal (key
            # `<step key>/burn`), so its record still labels every card by what it was for.
            # The deal names its position (the cards this table's events hold from the
            # shuffle), so a replica that takes the step again after another's lost append,
            # under a new key, gets the cards the dealer dealt there, never the next ones.
            shuffle_id = table.shell.shuffle_id_for(tid, request.round, request.name)
            position = table.shell.dealt_from(shuffle_id)
            deal = (shuffle_id, request.count, key, request.purpose)
            placed = {"burn": request.burn, "position": position}
            cards: tuple[Card, ...] = yield Call("dealer", "deal", deal, placed, batch="last")
            dealt = events_pb2.ShuffleDealt(
                hand=request.round,
                shuffle_id=shuffle_id,
                name=_stored_name(request.name),
                position=position,
                count=request.burn + request.count,
            )
            drawn = c.CardsDrawn(request.round, request.name, tuple(cards), request.burn)
            return [dealt], drawn
        if isinstance(request, c.Evaluate):
            ranks: tuple[SeatRank, ...] = yield Rank(request.requests)
            return [], c.Evaluated(ranks)
        if isinstance(request, c.OpenShuffle):
            return (yield from self._open(table, request, now))
        if isinstance(request, c.ReturnCards):
            shuffle_id = table.shell.shuffle_id_for(tid, request.round, request.name)
            # The dealer refuses a reshuffle no draw needs; at the position the table's
            # events have reached, one taken again is answered, not refused.
            reshuffle = (shuffle_id, request.cards, key, request.needed)
            position = table.shell.dealt_from(shuffle_id)
            yield Call("dealer", "reshuffle", reshuffle, {"position": position})
            return [], c.CardsReturned(request.round, request.name, request.cards)
        if isinstance(request, c.CloseShuffle):
            shuffle_id = table.shell.shuffle_id_for(tid, request.round, request.name)
            reveal: str = yield Call(
                "dealer", "close", (shuffle_id, "round ended"), batch="recorded"
            )
            revealed = events_pb2.ShuffleRevealed(
                hand=request.round,
                shuffle_id=shuffle_id,
                reveal_json=reveal,
                name=_stored_name(request.name),
            )
            # The game's own record of it is public: the commitments and contributions, not
            # where each card went, and the seed only where the table's policy says everyone.
            public = public_reveal(
                reveal, shuffle_id, seed_is_public(table.shell.seed_reveal, unused=False)
            )
            return [revealed], c.ShuffleClosed(request.round, request.name, public)
        if isinstance(request, c.Transfer):
            yield from self._transfer(table, request)
            return [], c.TransferDone(request.key)
        raise AssertionError(request)

    def _transfer(self, table: Table, request: c.Transfer) -> Script[None]:
        if request.amount <= 0:
            return  # no chips to move
        parties = (request.source, request.destination)
        key = transfer_key(table, request)
        currency = table.shell.currency
        round_ = process.round_of(table)
        if parties == (c.Party.ESCROW, c.Party.HOUSE):
            yield Call("ledger", "rake", (key, table.table_id, round_, request.amount, currency))
        elif parties == (c.Party.HOUSE, c.Party.ESCROW):
            args = (key, table.table_id, round_, request.amount, currency)
            yield Call("ledger", "from_house", args)
        else:
            raise errors.FailedPrecondition(
                f"table {table.table_id}: a transfer from {request.source} to "
                f"{request.destination} moves no chips anywhere"
            )

    def _open(
        self, table: Table, request: c.OpenShuffle, now: int
    ) -> Script[tuple[list[object], c.ChanceAnswer | None]]:
        """The shuffle announced for this round already, or one opened now: announced when
        its round is still ahead, committed at once when its round has started. A standard
        deck for the round that is next is announced with a commit window and answered once
        it is settled (entropy_window.py), so every player can add entropy to it first."""
        tid = table.table_id
        last = table.game.rounds(table.state).last
        found = table.shell.upcoming_shuffle(request.round, request.name)
        if found is not None:
            if request.round == last + 1:
                sealed = yield from self._settling(table, request.round, now, request.name)
                if sealed:
                    return sealed, None
            shuffle = Commitment(*found)
            return [], c.ShuffleOpened(
                request.round, request.name, shuffle.shuffle_id, shuffle.commitment
            )
        shuffle_id = table.shell.shuffle_id_for(tid, request.round, request.name)
        opening = Call("dealer", "open_shuffle", (shuffle_id, request.deck), batch="recorded")
        shuffle = cast(Commitment, (yield opening))
        standard = request.deck == STANDARD_DECK
        recorded: object
        if standard and request.round > last:
            next_round = request.round == last + 1
            recorded = events_pb2.ShuffleAnnounced(
                hand=request.round,
                shuffle_id=shuffle.shuffle_id,
                commitment=shuffle.commitment,
                positions_root=shuffle.positions_root,
                name=_stored_name(request.name),
                # (a window of its own: announced only now, it has no round before it)
                commit_until_unix_ms=self._commit_until(now),
            )
            if next_round:
                # Answered once settled; the round after it is announced with it, so its
                # shuffle takes commitments during this one's window too.
                events: list[object] = [recorded]
                yield from self._ahead(
                    table.shell,
                    tid,
                    request.round + 1,
                    request.name,
                    events,
                    self._commit_until(now),
                )
                return events, None
        else:
            recorded = events_pb2.ShuffleCommitted(
                hand=request.round,
                shuffle_id=shuffle.shuffle_id,
                commitment=shuffle.commitment,
                positions_root=shuffle.positions_root,
                name=_stored_name(request.name),
                custom_deck=not standard,
            )
        answer = c.ShuffleOpened(
            request.round, request.name, shuffle.shuffle_id, shuffle.commitment
        )
        return [recorded], answer

    def _start(
        self, table: Table, round_: int, now: int
    ) -> Script[tuple[list[object], c.ChanceAnswer, list[object]]]:
        """Round `round_` starts. Shuffles are announced two rounds ahead: a shuffle takes
        entropy commitments while the round two before it plays, is sealed when the round
        before it starts (now, for round + 1) and takes the committed entropies' reveals
        during that round, so the order is fixed at its round's first card without any
        round waiting (docs/dealer.md, "Player entropy"). Every shuffle name the table has
        used is announced so; the round's own announced shuffles are committed now. Returns
        the shell's events before the game's, the answer, and the seats' time-bank refills
        (recorded after the game's events)."""
        shell = table.shell
        tid = table.table_id
        events: list[object] = [
            events_pb2.ShuffleCommitted(
                hand=round_,
                shuffle_id=u.shuffle_id,
                commitment=u.commitment,
                positions_root=u.positions_root,
                name=_stored_name(u.name),
            )
            for u in shell.upcoming
            if u.round == round_
        ]
        for name in shell.shuffle_names:
            following = shell.upcoming_shuffle(round_ + 1, name)
            if following is None:
                # Announced only now: it takes commitments for a window of its own and is
                # sealed when its round is next (`_settling`).
                until = self._commit_until(now)
                yield from self._ahead(shell, tid, round_ + 1, name, events, until)
            elif not _is_sealed(shell, round_ + 1, name) and not _taking_commits(
                shell, round_ + 1, name, now
            ):
                # (a round ahead: who committed is only recorded until its round is next)
                seal = Call("dealer", "seal", (following[0],), batch="recorded")
                committed: tuple[str, ...] = yield seal
                events.append(self._sealed(round_ + 1, following[0], name, committed, now))
            yield from self._ahead(shell, tid, round_ + 2, name, events)
        seated = [s.seat for s in table.game.rules.seats(table.state)]
        refills: list[object] = [
            events_pb2.TimeBankRefilled(
                hand=round_, seat=r.seat, added_ms=r.added_ms, remaining_ms=r.remaining_ms
            )
            for r in on_hand_started(shell.banks, shell.bank_rules, round_, seated)
            if isinstance(r, TimeBankRefilled)
        ]
        return events, c.RoundStarts(round_), refills

    def _commit_until(self, now: int) -> int:
        return now + self.timing.commit_ms

    def _ahead(
        self,
        shell: ShellState,
        table_id: str,
        round_: int,
        name: str,
        events: list[object],
        commit_until_ms: int = 0,
    ) -> Script[str]:
        """The shuffle `name` of a round ahead: the announced one, or one opened and announced
        now (its ShuffleAnnounced added to `events`). Its id."""
        found = shell.upcoming_shuffle(round_, name)
        if found is not None:
            return found[0]
        shuffle_id = shell.shuffle_id_for(table_id, round_, name)
        opening = Call("dealer", "open_shuffle", (shuffle_id, STANDARD_DECK), batch="recorded")
        opened: Commitment = yield opening
        events.append(
            events_pb2.ShuffleAnnounced(
                hand=round_,
                shuffle_id=opened.shuffle_id,
                commitment=opened.commitment,
                positions_root=opened.positions_root,
                name=_stored_name(name),
                commit_until_unix_ms=commit_until_ms,
            )
        )
        return opened.shuffle_id


def _forgotten(table: Table, u: Announced, public: str) -> list[object]:
    """The game's own answer to a withdrawn shuffle it holds already (poker opens its next
    two hands' decks ahead): closed unused, so its round opens a fresh one; nothing from a
    game that holds none (it refuses the answer)."""
    try:
        return list(table.game.rules.decide(table.state, c.ShuffleClosed(u.round, u.name, public)))
    except RuleViolation:
        return []


def _placeholder(call: Call) -> object:
    """What `_plan` answers a call whose answer is only recorded (never what is recorded)."""
    if call.method == "close":
        return "{}"
    if call.method == "open_shuffle":
        return Commitment(call.args[0], "00" * 32)
    if call.method == "seal":
        return ()
    raise AssertionError(call)


def _is_sealed(shell: ShellState, round_: int, name: str) -> bool:
    return any(u.sealed for u in shell.upcoming if (u.round, u.name) == (round_, name))


def _taking_commits(shell: ShellState, round_: int, name: str, now: int) -> bool:
    """Whether the announced shuffle's own commit window is still open (one announced just
    before the round ahead of it started): it is sealed when its round is next, not now."""
    return any(
        u.commit_until_ms > now for u in shell.upcoming if (u.round, u.name) == (round_, name)
    )


def _stored_name(name: str) -> str:
    """How envelope events store a shuffle's name ("" for a round's one deck)."""
    return "" if name == DECK else name
