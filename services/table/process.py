"""What the table needs next from the outside world, decided purely from its state.

`next_step(table)` looks at the engine's `pending_chance` and the shell's bookkeeping and names
one step (post a reserved buy-in, pay a cash-out, settle a hand's rake, reveal its shuffle,
start a hand, deal cards, reshuffle discards, rank a showdown). The application performs the
step's I/O under the step's deterministic key (taken at the version the step starts from) and
appends consecutive steps' events together, keyed by the first step, so a crash between steps
is finished by whichever instance loads the table next, and two instances doing the same
steps append them once. `is_local` names the steps with no outside effect, which may join the
append of the command that led to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.poker.chance import (
    NeedCards,
    NeedHandStart,
    NeedRanks,
    NeedReshuffle,
    eligible_seats,
    pending_chance,
)
from services.table.shell import PendingBuyIn, PendingCashOut, Table


@dataclass(frozen=True, slots=True)
class PostBuyIn:
    buy_in: PendingBuyIn


@dataclass(frozen=True, slots=True)
class PayCashOut:
    cash_out: PendingCashOut


@dataclass(frozen=True, slots=True)
class Settle:
    """Move the hand's rake to the house (nothing to move when there is no rake)."""

    hand: int
    rake: int


@dataclass(frozen=True, slots=True)
class Reveal:
    hand: int
    shuffle_id: str


@dataclass(frozen=True, slots=True)
class StartHand:
    hand: int


@dataclass(frozen=True, slots=True)
class Deal:
    hand: int
    request: NeedCards


@dataclass(frozen=True, slots=True)
class Reshuffle:
    hand: int
    request: NeedReshuffle


@dataclass(frozen=True, slots=True)
class Rank:
    hand: int
    request: NeedRanks


Step = PostBuyIn | PayCashOut | Settle | Reveal | StartHand | Deal | Reshuffle | Rank


def next_step(table: Table) -> Step | None:
    """The one thing to do next, or None when the table waits for a player (or players)."""
    shell = table.shell
    if shell.pending_buy_ins:
        return PostBuyIn(shell.pending_buy_ins[0])
    if shell.pending_cash_outs:
        return PayCashOut(shell.pending_cash_outs[0])
    engine = table.engine
    hand = engine.hand
    if hand is None and shell.ended_hand > shell.settled_hand:
        return Settle(shell.ended_hand, shell.hand_rake)
    if hand is None and shell.shuffle_hand > shell.revealed_hand and shell.shuffle_id:
        return Reveal(shell.shuffle_hand, shell.shuffle_id)
    request = pending_chance(engine)
    if isinstance(request, NeedHandStart):
        waiting = engine.last_hand == 0 and len(eligible_seats(engine)) < shell.min_players_to_start
        return None if waiting else StartHand(engine.last_hand + 1)
    if hand is None:
        return None
    if isinstance(request, NeedCards):
        return Deal(hand.number, request)
    if isinstance(request, NeedReshuffle):
        return Reshuffle(hand.number, request)
    if isinstance(request, NeedRanks):
        return Rank(hand.number, request)
    return None


def is_local(step: Step) -> bool:
    """Whether the step changes nothing outside the table (ranking a showdown is a query;
    settling a hand without rake moves no chips), so it may join the append of the command
    that led to it: if that command is never recorded, nothing outside remembers the step."""
    return isinstance(step, Rank) or (isinstance(step, Settle) and step.rake <= 0)


def step_key(table: Table, step: Step) -> str:
    """Deterministic idempotency key of a step taken at the table's current version."""
    tid = table.table_id
    match step:
        case PostBuyIn(buy_in):
            return f"{buy_in.transfer_key}/recorded"
        case PayCashOut(cash_out):
            return f"{cash_out.transfer_key}/recorded"
        case Settle(hand, _):
            return f"{tid}/{hand}/settle"
        case Reveal(hand, _):
            return f"{tid}/{hand}/reveal"
        case StartHand(hand):
            return f"{tid}/{hand}/start"
        case Deal(hand, _) | Reshuffle(hand, _) | Rank(hand, _):
            return f"{tid}/{hand}/{type(step).__name__.lower()}/{table.version}"
    raise AssertionError(step)
