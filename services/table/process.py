"""What the table needs next from the outside world, decided purely from its state.

`next_step(table)` names one step: post a reserved buy-in, pay a cash-out (the shell's own
bookkeeping), or fetch what the game asks for (`GameRules.pending_chance`: a shuffle opened
or closed, cards drawn or returned, chips moved between the escrow and the house, hands
ranked, the next round started). The shell keeps none of the game's protocol: the order of
the requests is the game's. The application performs the step's I/O under the step's
deterministic key (taken at the version the step starts from) and appends consecutive steps'
events together, keyed by the first step, so a crash between steps is finished by whichever
instance loads the table next, and two instances doing the same steps append them once.
`is_local` names the steps with no outside effect, which may join the append of the command
that led to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.table.shell import DECK, Announced, PendingBuyIn, PendingCashOut, Table


@dataclass(frozen=True, slots=True)
class PostBuyIn:
    buy_in: PendingBuyIn


@dataclass(frozen=True, slots=True)
class PayCashOut:
    cash_out: PendingCashOut


@dataclass(frozen=True, slots=True)
class Fetch:
    """What the game asks for (one of the contract's chance requests)."""

    request: c.ChanceRequest


@dataclass(frozen=True, slots=True)
class CloseSeat:
    """A closing table's seat leaves (between rounds): the game's own Leave, whose cash-out
    the shell then pays like any other."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class RevealAhead:
    """A closed table's shuffle announced for a round it will never deal: closed and its
    reveal published, so every commitment the table made is verifiable."""

    shuffle: Announced


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Announced shuffles the table will not deal from (it emptied, or stayed idle between
    rounds): recorded withdrawn first, on their own, so that no instance deals from them once
    the dealer closes them (a player joining meanwhile finds them withdrawn, and their round
    announces fresh ones); then each is closed and revealed (RevealAhead)."""

    shuffles: tuple[Announced, ...]
    reason: str


Step = PostBuyIn | PayCashOut | Fetch | CloseSeat | RevealAhead | Withdraw

EMPTIED = "the table emptied"


def next_step(table: Table) -> Step | None:
    """The one thing to do next, or None when the table waits for a player (or players)."""
    shell = table.shell
    if shell.pending_buy_ins:
        return PostBuyIn(shell.pending_buy_ins[0])
    if shell.pending_cash_outs:
        return PayCashOut(shell.pending_cash_outs[0])
    if shell.withdrawn:
        return RevealAhead(shell.withdrawn[0])
    request = table.game.rules.pending_chance(table.state)
    if shell.closing and (request is None or isinstance(request, c.StartRound)):
        # A closing table finishes the round in play (and what the game does after it),
        # then lets its seats go instead of starting another.
        if table.game.rounds(table.state).current is None:
            if shell.players:
                return CloseSeat(*shell.players[0])
            if shell.upcoming:
                return RevealAhead(shell.upcoming[0])
        return None
    if shell.upcoming and not shell.players and between_rounds(table, request):
        return Withdraw(shell.upcoming, EMPTIED)
    if request is None:
        return None
    if isinstance(request, c.StartRound | c.OpenShuffle) and waiting_for_players(table):
        # (nor is the first round's shuffle announced: it would be sealed once the players
        # seated so far committed, and a player who sits down before the first card would
        # play a deck without their entropy)
        return None
    return Fetch(request)


def between_rounds(table: Table, request: c.ChanceRequest | None) -> bool:
    """No round is in play and the game asks for nothing but the next one (or nothing):
    a shuffle announced ahead is not about to be dealt from."""
    if table.game.rounds(table.state).current is not None:
        return False
    return request is None or isinstance(request, c.StartRound)


def withdrawal(table: Table, reason: str) -> list[object]:
    """The events withdrawing every shuffle the table announced ahead (none while a round
    is in play or about to start one of them)."""
    request = table.game.rules.pending_chance(table.state)
    if not between_rounds(table, request):
        return []
    return [
        events_pb2.ShuffleWithdrawn(
            hand=u.round,
            shuffle_id=u.shuffle_id,
            name="" if u.name == DECK else u.name,
            reason=reason,
        )
        for u in table.shell.upcoming
    ]


def waiting_for_players(table: Table) -> bool:
    """Whether the table's first round waits for more players: it starts once the table's
    `min_players_to_start` sit in with chips (later rounds go on as the game allows)."""
    if table.game.rounds(table.state).last > 0:
        return False
    seats = table.game.rules.seats(table.state)
    ready = sum(1 for s in seats if not s.sitting_out and s.stack > 0)
    return ready < table.shell.min_players_to_start


def is_local(step: Step) -> bool:
    """Whether the step changes nothing outside the table (ranking hands is a query; a
    transfer of no chips moves none), so it may join the append of the command that led to
    it: if that command is never recorded, nothing outside remembers the step. A closing
    table's seat leaving moves no chips itself (its cash-out is a step of its own)."""
    if isinstance(step, CloseSeat | Withdraw):
        return True
    if not isinstance(step, Fetch):
        return False
    request = step.request
    return isinstance(request, c.Evaluate) or (
        isinstance(request, c.Transfer) and request.amount <= 0
    )


def round_of(table: Table) -> int:
    """The round a step belongs to: the current one, else the last."""
    rounds = table.game.rounds(table.state)
    return rounds.current if rounds.current is not None else rounds.last


def shuffle_id_of(table_id: str, round_: int, name: str = DECK) -> str:
    """The dealer shuffle `name` of `round_` (deterministic: any instance finds it again)."""
    suffix = "" if name == DECK else f".{name}"
    return f"{table_id}.hand-{round_}{suffix}"


def transfer_key(table: Table, request: c.Transfer) -> str:
    """The ledger key of a game's transfer: its own key in the table's namespace."""
    return f"{table.table_id}/{request.key}"


def _entropy_stage(table: Table, round_: int, name: str | None = None) -> str:
    """Where the round's announced shuffles are in their entropy window: one request (a
    round's start, a shuffle's opening) takes a step per stage (announce, seal, answer), so
    each stage's step has a key of its own."""
    return "".join(
        f"/{u.name}-{'sealed' if u.sealed else 'announced'}"
        for u in table.shell.upcoming
        if u.round == round_ and (name is None or u.name == name)
    )


def step_key(table: Table, step: Step) -> str:
    """Deterministic idempotency key of a step taken at the table's current version."""
    tid = table.table_id
    if isinstance(step, PostBuyIn):
        return f"{step.buy_in.transfer_key}/recorded"
    if isinstance(step, PayCashOut):
        return f"{step.cash_out.transfer_key}/recorded"
    if isinstance(step, CloseSeat):
        return f"{tid}/close/seat-{step.seat}/{table.version}"
    if isinstance(step, RevealAhead):
        return f"{tid}/reveal-unused/{step.shuffle.shuffle_id}"
    if isinstance(step, Withdraw):
        return f"{tid}/withdraw/{table.version}"
    request = step.request
    if isinstance(request, c.StartRound):
        return f"{tid}/{request.round}/start{_entropy_stage(table, request.round)}"
    if isinstance(request, c.OpenShuffle):
        stage = _entropy_stage(table, request.round, request.name)
        return f"{tid}/{request.round}/open/{request.name}{stage}"
    if isinstance(request, c.CloseShuffle):
        named = "" if request.name == DECK else f"/{request.name}"
        return f"{tid}/{request.round}/reveal{named}"
    if isinstance(request, c.Transfer):
        return f"{transfer_key(table, request)}/recorded"
    kind = {c.DrawCards: "deal", c.ReturnCards: "reshuffle", c.Evaluate: "rank"}[type(request)]
    return f"{tid}/{round_of(table)}/{kind}/{table.version}"
