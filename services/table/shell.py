"""The table service's own bookkeeping, folded purely from the same stream as the engine.

The engine knows seats, hands and chips; the service also has to remember which ledger
transfers are still owed (buy-ins reserved but not posted, cash-outs, a hand's rake), which
shuffle deals the current hand, whether the shuffle was revealed, which decision the table
waits for (deadline, action number) and which command idempotency keys were already used.
`fold_shell(state, version, event)` is pure; `Table` pairs it with the engine state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter

from google.protobuf.message import Message

from croupier.table.v1 import events_pb2
from services.games.poker import events as ev
from services.games.poker.state import TableState
from services.games.timebank import (
    TimeBankOpened,
    TimeBankRules,
    TimeBanks,
)
from services.games.timebank import apply as apply_bank
from services.table.command_keys import REMEMBERED_KEYS as REMEMBERED_KEYS
from services.table.command_keys import CommandKeys


@dataclass(frozen=True, slots=True)
class PendingBuyIn:
    seat: int
    player: str
    amount: int
    account: str
    reservation_id: str
    transfer_key: str


@dataclass(frozen=True, slots=True)
class PendingCashOut:
    player: str
    amount: int
    transfer_key: str


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision the table waits for (from the last ActionRequested)."""

    hand: int
    seat: int
    action_number: int
    deadline_unix_ms: int
    # The deadline includes time-bank extensions (TimeBankExtended moved it).
    extended: bool = False


@dataclass(frozen=True, slots=True)
class ShellState:
    table_id: str = ""
    currency: str = "CHIP"
    created_by: str = ""
    action_time_ms: int = 0
    time_bank_ms: int = 0
    time_bank_chunk_ms: int = 0
    time_bank_refill_ms: int = 0
    time_bank_refill_every_hands: int = 0
    time_bank_cap_ms: int = 0
    banks: TimeBanks = field(default_factory=TimeBanks)  # remaining time bank per seat (ms)
    min_players_to_start: int = 2
    accounts: tuple[tuple[str, str], ...] = ()  # (player, ledger account)
    bots: tuple[str, ...] = ()  # players that are bots
    requested_bots: tuple[tuple[str, float], ...] = ()  # CreateTable's (policy, difficulty)
    pending_buy_ins: tuple[PendingBuyIn, ...] = ()
    pending_cash_outs: tuple[PendingCashOut, ...] = ()
    shuffle_id: str = ""  # shuffle of the current (or last) hand
    shuffle_hand: int = 0
    shuffle_commitment: str = ""
    # shuffles announced ahead of their hands, (hand, shuffle id, commitment), oldest first:
    # the next hand's (sealed when the current hand started: reveals) and the one after
    # (open: entropy commitments)
    upcoming: tuple[tuple[int, str, str], ...] = ()
    revealed_hand: int = 0  # last hand whose shuffle was revealed
    ended_hand: int = 0  # last hand that ended or was voided
    settled_hand: int = 0  # last hand whose rake reached the ledger
    hand_rake: int = 0  # rake of the current/last hand, owed to the house
    decision: Decision | None = None
    # key -> version the command's events ended at (answers retries without acting again),
    # oldest first, the newest REMEMBERED_KEYS: a mapping because every command looks its
    # key up (a scan of 512 pairs was ~10% of the command path's time), and a CommandKeys
    # once folded, which a command extends without copying all of it (command_keys.py)
    keys: Mapping[str, int] = field(default_factory=CommandKeys, hash=False)

    def upcoming_shuffle(self, hand: int) -> tuple[str, str] | None:
        """The announced shuffle (id, commitment) that will deal `hand`, if any."""
        return next(((sid, c) for h, sid, c in self.upcoming if h == hand), None)

    @property
    def bank_rules(self) -> TimeBankRules:
        return TimeBankRules(
            action_time_ms=self.action_time_ms,
            bank_ms=self.time_bank_ms,
            chunk_ms=self.time_bank_chunk_ms,
            refill_ms=self.time_bank_refill_ms,
            refill_every_hands=self.time_bank_refill_every_hands,
            cap_ms=self.time_bank_cap_ms,
        )

    def bots_seated(self) -> tuple[str, ...]:
        """Every bot that bought in here since the table was created, once, in order."""
        return tuple(dict.fromkeys(self.bots))

    def account_of(self, player: str) -> str | None:
        return next((a for p, a in self.accounts if p == player), None)

    def version_of_key(self, key: str) -> int | None:
        return self.keys.get(key)


@dataclass(frozen=True, slots=True)
class Table:
    """One table as the service sees it at `version`: the engine's state plus the shell's."""

    table_id: str
    version: int
    engine: TableState
    shell: ShellState


_SHELL_FIELDS = ShellState.__slots__
_shell_values = attrgetter(*_SHELL_FIELDS)


def _evolve(state: ShellState, **changes: object) -> ShellState:
    """`dataclasses.replace` for the shell, ~2x faster (it runs for most events a table
    folds, and replace re-runs __init__ over every field)."""
    new = object.__new__(ShellState)
    for name, value in zip(_SHELL_FIELDS, _shell_values(state), strict=True):
        object.__setattr__(new, name, value)
    for name, value in changes.items():
        object.__setattr__(new, name, value)
    return new


def fold_shell(state: ShellState, version: int, event: object) -> ShellState:
    """The shell state after `event` (an engine dataclass or a shell protobuf message)."""
    if isinstance(event, Message):
        return _fold_message(state, version, event)
    if isinstance(event, ev.PlayerLeft) and event.stack > 0:
        key = f"{state.table_id}/cashout/{version}"
        cash_out = PendingCashOut(event.player, event.stack, key)
        return _evolve(state, pending_cash_outs=(*state.pending_cash_outs, cash_out))
    if isinstance(event, ev.PlayerSeated):
        # A player who sits down starts with a full bank (whoever held the seat before).
        opened = TimeBankOpened(event.seat, state.time_bank_ms)
        return _evolve(state, banks=apply_bank(state.banks, opened))
    if isinstance(event, ev.HandStarted):
        return _evolve(state, hand_rake=0, decision=None)
    if isinstance(event, ev.PotAwarded):
        return _evolve(state, hand_rake=state.hand_rake + event.rake)
    if isinstance(event, ev.HandEnded | ev.HandVoided):
        rake = state.hand_rake if isinstance(event, ev.HandEnded) else 0
        return _evolve(state, ended_hand=event.hand, hand_rake=rake, decision=None)
    return state


def _fold_message(state: ShellState, version: int, event: Message) -> ShellState:
    # (the two messages of every command first)
    if isinstance(event, events_pb2.CommandAccepted):
        keys = CommandKeys.of(state.keys)
        return _evolve(state, keys=keys.accepted(event.key, version + event.events))
    if isinstance(event, events_pb2.ActionRequested):
        decision = Decision(event.hand, event.seat, event.action_number, event.deadline_unix_ms)
        return _evolve(state, decision=decision)
    if isinstance(event, events_pb2.TableCreated):
        return _evolve(
            state,
            table_id=event.table_id,
            currency=event.currency,
            created_by=event.created_by,
            action_time_ms=event.action_time_ms,
            time_bank_ms=event.time_bank_ms,
            time_bank_chunk_ms=event.time_bank_chunk_ms,
            time_bank_refill_ms=event.time_bank_refill_ms,
            time_bank_refill_every_hands=event.time_bank_refill_every_hands,
            time_bank_cap_ms=event.time_bank_cap_ms,
            min_players_to_start=max(2, event.min_players_to_start),
            requested_bots=tuple((b.policy, b.difficulty) for b in event.bots),
        )
    if isinstance(event, events_pb2.BuyInReserved):
        pending = PendingBuyIn(
            event.seat,
            event.player,
            event.amount,
            event.account,
            event.reservation_id,
            event.transfer_key,
        )
        accounts = tuple((p, a) for p, a in state.accounts if p != event.player)
        bots = (*state.bots, event.player) if event.is_bot else state.bots
        return _evolve(
            state,
            pending_buy_ins=(*state.pending_buy_ins, pending),
            accounts=(*accounts, (event.player, event.account)),
            bots=bots,
        )
    if isinstance(event, events_pb2.BuyInPosted):
        rest = tuple(p for p in state.pending_buy_ins if p.transfer_key != event.transfer_key)
        return _evolve(state, pending_buy_ins=rest)
    if isinstance(event, events_pb2.CashOutPosted):
        rest_out = tuple(p for p in state.pending_cash_outs if p.transfer_key != event.transfer_key)
        return _evolve(state, pending_cash_outs=rest_out)
    if isinstance(event, events_pb2.ShuffleCommitted):
        return _evolve(
            state,
            shuffle_id=event.shuffle_id,
            shuffle_hand=event.hand,
            shuffle_commitment=event.commitment,
            upcoming=tuple(u for u in state.upcoming if u[0] > event.hand),
        )
    if isinstance(event, events_pb2.ShuffleAnnounced):
        announced = (event.hand, event.shuffle_id, event.commitment)
        kept = tuple(u for u in state.upcoming if u[0] != event.hand)
        return _evolve(state, upcoming=(*kept, announced))
    if isinstance(event, events_pb2.ShuffleRevealed):
        return _evolve(state, revealed_hand=event.hand)
    if isinstance(event, events_pb2.HandSettled):
        return _evolve(state, settled_hand=event.hand, hand_rake=0)
    if isinstance(event, events_pb2.TimeBankExtended):
        banks = apply_bank(state.banks, TimeBankOpened(event.seat, event.remaining_ms))
        current = state.decision
        if current is None or (current.hand, current.action_number) != (
            event.hand,
            event.action_number,
        ):
            return _evolve(state, banks=banks)
        moved = replace(current, deadline_unix_ms=event.deadline_unix_ms, extended=True)
        return _evolve(state, banks=banks, decision=moved)
    if isinstance(event, events_pb2.TimeBankRefilled):
        refilled = TimeBankOpened(event.seat, event.remaining_ms)
        return _evolve(state, banks=apply_bank(state.banks, refilled))
    return state
