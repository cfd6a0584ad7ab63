"""Process steps: what a table needs from the outside world between players' decisions
(ledger postings, dealer shuffles and cards, reveals, hand ranks), taken and recorded.

`drive` performs the steps the table needs until it waits for players. Consecutive steps run
in memory, each from the state the previous one left (its I/O keyed as if the earlier steps
were appended already, so the keys do not depend on how steps are grouped), and are appended
together once, keyed by the first step. A crash before that append leaves nothing recorded:
whoever loads the table next redoes the same steps with the same keys (the dealer returns the
same cards, the ledger the same entries), and two instances never apply a step twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from croupier.table.v1 import events_pb2
from services.games.poker import commands as cmd
from services.games.poker.chance import NeedCards, deal_from, rank_hands
from services.games.poker.definitions import DealBoard, Draw
from services.games.poker.events import Event
from services.games.poker.state import TableState
from services.games.ranking import HandRanker
from services.games.timebank import TimeBankRefilled, on_hand_started
from services.shared import errors
from services.table import process
from services.table.decisions import Decisions
from services.table.folding import fold_events
from services.table.ports import Commitment, DealerPort, LedgerPort
from services.table.shell import ShellState, Table
from services.table.tables import Tables


def shuffle_id_of(table_id: str, hand: int) -> str:
    """The dealer shuffle that deals `hand` of the table (deterministic: any instance finds it)."""
    return f"{table_id}.hand-{hand}"


@dataclass(slots=True)
class StepRun:
    """Process steps taken in memory: the table they make, their events, the first step's
    key (the batch's idempotency key), how many, and the error that stopped them, if any."""

    table: Table
    events: list[object] = field(default_factory=list)
    key: str = ""
    taken: int = 0
    failure: errors.DomainError | None = None


class ProcessSteps:
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
        self.dealer = dealer
        self.ledger = ledger
        self.ranker = ranker

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
        tables = self.tables
        with tables.lock(table.table_id):
            base = tables.current(table.table_id)
            if base.version != table.version:
                return base, 0  # someone moved the table on: look again
            run = self.take(base, max_steps, local_only=False)
            if not run.events:
                if run.failure is not None:
                    raise run.failure
                return tables.load(table.table_id), 0
            folded = self.decisions.ask_next(run.table, run.events, base)
            tables.mark(table.table_id)
            appended = tables.append(base, run.events, run.key, folded)
            if appended is None:
                return tables.load(table.table_id), 0
            self.decisions.after_append(base, appended)
            if run.failure is not None:
                raise run.failure
            return appended, run.taken

    def take(self, table: Table, limit: int, local_only: bool) -> StepRun:
        """Take up to `limit` process steps in memory, each from the state the one before left
        (only the side-effect-free ones when `local_only`), stopping at the first that has
        nothing to do or fails (its error is returned, the steps before it kept)."""
        run = StepRun(table)
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

    def _announced(self, shell: ShellState, table_id: str, hand: int) -> Commitment:
        """The shuffle announced for `hand`, or one created now (the first hands of a table,
        whose shuffles were never announced: they take no player entropy)."""
        found = shell.upcoming_shuffle(hand)
        if found is not None:
            return Commitment(*found)
        return self.dealer.open_shuffle(shuffle_id_of(table_id, hand))

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
