"""The table service's own bookkeeping, folded purely from the same stream as the game.

The game knows seats, rounds and chips; the shell also has to remember which ledger transfers
are still owed (buy-ins reserved but not posted, cash-outs), which shuffles were announced
ahead of their rounds (players' entropy goes to them), which decisions the table waits for
(deadline, number, the game's own id for each), the seats' time banks, and which command
idempotency keys were already used. What it learns from the game's events it learns through
the contract (`cash_out`) and the game's table adapter (`seating`, `round_of`), never by
looking inside them. `fold_message` and `fold_game_event` are pure; `Table` pairs the shell's
state with the game's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

from google.protobuf.message import Message

from croupier.table.v1 import events_pb2
from services.games.timebank import (
    TimeBankOpened,
    TimeBankRules,
    TimeBanks,
)
from services.games.timebank import apply as apply_bank
from services.table.command_keys import REMEMBERED_KEYS as REMEMBERED_KEYS
from services.table.command_keys import CommandKeys
from services.table.games.adapter import GameTable

DECK = "deck"  # the shuffle name a round's one shuffle goes by ("" in stored envelope events)


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
    """A decision the table waits for (from an ActionRequested): the round it belongs to,
    the seat, its number in the round (its envelope id is "<hand>/<action_number>"), its
    deadline (moved by time-bank extensions, then `extended`, or restarted by the game at a
    new `since`) and the game's own id."""

    hand: int
    seat: int
    action_number: int
    deadline_unix_ms: int
    extended: bool = False
    game_id: str = ""
    since: int = 0  # the game's count the deadline runs from (contract.Deadline.since)


@dataclass(frozen=True, slots=True)
class Announced:
    """A shuffle opened ahead of its round, so players can contribute entropy to it: it takes
    commitments until it is sealed, then the committed entropies' reveals until its round
    deals from it. Its round waits for the seated players' commitments until
    `commit_until_ms` (0: never; it is sealed when the round before starts) and for the
    committed reveals until `reveal_until_ms`, table clock."""

    round: int
    name: str
    shuffle_id: str
    commitment: str
    commit_until_ms: int = 0
    sealed: bool = False
    reveal_until_ms: int = 0
    committed: tuple[str, ...] = ()  # who committed (known once sealed)
    positions_root: str = ""  # hex, public with the commitment (docs/dealer.md 2.10)


@dataclass(frozen=True, slots=True)
class ShellState:
    table_id: str = ""
    game: str = ""  # the catalog name of the table's game
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
    # who receives each hand's seed once it is over (events_pb2.SeedReveal, never 0 here)
    seed_reveal: int = events_pb2.SEED_REVEAL_AUDITORS
    accounts: tuple[tuple[str, str], ...] = ()  # (player, ledger account)
    # (seat, player) of every occupied seat, from the game's seating events (the adapter's
    # `seating`): who sits where without asking the game for its seats
    players: tuple[tuple[int, str], ...] = ()
    bots: tuple[str, ...] = ()  # players that are bots
    requested_bots: tuple[tuple[str, float], ...] = ()  # CreateTable's (policy, difficulty)
    pending_buy_ins: tuple[PendingBuyIn, ...] = ()
    pending_cash_outs: tuple[PendingCashOut, ...] = ()
    # shuffles opened ahead of their rounds, oldest first: the next round's (sealed when the
    # current one started: it takes reveals) and the one after (open: entropy commitments)
    upcoming: tuple[Announced, ...] = ()
    # the names of the table's shuffles of one standard deck (announced ahead of each round)
    shuffle_names: tuple[str, ...] = ()
    # announced shuffles withdrawn (the table emptied or stayed idle): closed and revealed
    # next, never dealt from
    withdrawn: tuple[Announced, ...] = ()
    # (round, name, how many of its shuffles were withdrawn) of the rounds not yet dealt:
    # the round's next shuffle takes a fresh id (`shuffle_id_for`)
    reannounced: tuple[tuple[int, str, int], ...] = ()
    # (shuffle id, cards the table's events hold from it, burns included) of the shuffles
    # dealt from and not yet revealed: where the next deal from each starts (ShuffleDealt)
    dealt: tuple[tuple[str, int], ...] = ()
    ended_hand: int = 0  # last round that ended or was voided
    # CloseTable was recorded (by `closed_by`): no new players or chips, no new round; every
    # seat leaves once the round in play ends (process.CloseSeat)
    closing: bool = False
    closed_by: str = ""
    # the decisions recorded in the current round, oldest first (those the game still owes
    # are the table's open decisions: decisions.open_decisions)
    decisions: tuple[Decision, ...] = ()
    decision_round: int = 0  # the round `decisions` belong to
    # key -> version the command's events ended at (answers retries without acting again),
    # oldest first, the newest REMEMBERED_KEYS: a mapping because every command looks its
    # key up (a scan of 512 pairs was ~10% of the command path's time), and a CommandKeys
    # once folded, which a command extends without copying all of it (command_keys.py)
    keys: Mapping[str, int] = field(default_factory=CommandKeys, hash=False)

    def shuffle_id_for(self, table_id: str, round_: int, name: str = DECK) -> str:
        """The id of the shuffle `name` of `round_` deals from (any instance finds it again):
        `{table}.hand-{n}[.{name}]`, and `_r{k}` after it when k - 1 of the round's shuffles
        were withdrawn before it (each a shuffle of its own at the dealer)."""
        suffix = "" if name == DECK else f".{name}"
        base = f"{table_id}.hand-{round_}{suffix}"
        count = next((k for r, n, k in self.reannounced if (r, n) == (round_, name)), 0)
        return base if count == 0 else f"{base}_r{count + 1}"

    def dealt_from(self, shuffle_id: str) -> int:
        """How many cards the table's events hold from `shuffle_id`: the position its next
        deal names at the dealer (so any replica asks for the same place in the deck)."""
        return next((count for sid, count in self.dealt if sid == shuffle_id), 0)

    def upcoming_shuffle(self, hand: int, name: str = DECK) -> tuple[str, str] | None:
        """The announced shuffle (id, commitment) that will deal `hand`, if any."""
        return next(
            (
                (u.shuffle_id, u.commitment)
                for u in self.upcoming
                if (u.round, u.name) == (hand, name)
            ),
            None,
        )

    @property
    def decision(self) -> Decision | None:
        """The latest decision recorded in the current round (the one decision of a
        turn-based game), None when there is none."""
        return self.decisions[-1] if self.decisions else None

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

    def seat_of(self, player: str) -> int | None:
        return next((seat for seat, p in self.players if p == player), None)

    def player_at(self, seat: int) -> str | None:
        return next((p for s, p in self.players if s == seat), None)

    def account_of(self, player: str) -> str | None:
        return next((a for p, a in self.accounts if p == player), None)

    def version_of_key(self, key: str) -> int | None:
        return self.keys.get(key)

    @property
    def closed(self) -> bool:
        """Closed and done: every seat left, every ledger transfer it owed is made and every
        shuffle it announced is revealed."""
        return (
            self.closing
            and not self.players
            and not self.pending_buy_ins
            and not self.pending_cash_outs
            and not self.upcoming
            and not self.withdrawn
        )


@dataclass(frozen=True, slots=True)
class Table:
    """One table as the service sees it at `version`: its game (the adapter), the game's
    state (the rules' own record) and the shell's."""

    table_id: str
    version: int
    game: GameTable
    state: Any
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


def fold_shell(state: ShellState, version: int, event: object, game: GameTable) -> ShellState:
    """The shell state after `event` (one of the game's events or an envelope message)."""
    if isinstance(event, Message):
        return fold_message(state, version, event)
    return fold_game_event(state, version, event, game)


def fold_game_event(state: ShellState, version: int, event: object, game: GameTable) -> ShellState:
    """What one of the game's events means to the shell: a cash-out owed (the contract's
    `cash_out`), a new player's full time bank, a round's start or end (its decisions
    done with)."""
    changes: dict[str, object] = {}
    out = game.rules.cash_out(event)
    if out is not None:
        key = f"{state.table_id}/cashout/{version}"
        cash_out = PendingCashOut(out.player, out.amount, key)
        changes["pending_cash_outs"] = (*state.pending_cash_outs, cash_out)
    seating = game.seating(event)
    if seating is not None:
        others = tuple(p for p in state.players if p[0] != seating.seat)
        if seating.player:
            changes["players"] = tuple(sorted((*others, (seating.seat, seating.player))))
            # A player who sits down starts with a full bank (whoever held the seat before).
            opened = TimeBankOpened(seating.seat, state.time_bank_ms)
            changes["banks"] = apply_bank(state.banks, opened)
        else:
            changes["players"] = others
        return _evolve(state, **changes)
    if changes:
        return _evolve(state, **changes)
    bound = game.round_of(event)
    if bound is None:
        return state
    number, starts = bound
    if starts:
        return _evolve(state, decisions=(), decision_round=number)
    return _evolve(state, ended_hand=number, decisions=())


def fold_message(state: ShellState, version: int, event: Message) -> ShellState:
    # (the two messages of every command first)
    if isinstance(event, events_pb2.CommandAccepted):
        keys = CommandKeys.of(state.keys)
        return _evolve(state, keys=keys.accepted(event.key, version + event.events))
    if isinstance(event, events_pb2.ActionRequested):
        decision = Decision(
            event.hand,
            event.seat,
            event.action_number,
            event.deadline_unix_ms,
            game_id=event.game_deadline,
            since=event.since,
        )
        if event.hand != state.decision_round:
            return _evolve(state, decisions=(decision,), decision_round=event.hand)
        decisions = state.decisions
        # (newest first: a restarted decision is nearly always one of the last asked)
        for i in range(len(decisions) - 1, -1, -1):
            if decisions[i].action_number == event.action_number:
                # The game restarted it (a new `since`): moved in place, no new decision.
                restarted = (*decisions[:i], decision, *decisions[i + 1 :])
                return _evolve(state, decisions=restarted)
        return _evolve(state, decisions=(*decisions, decision))
    if isinstance(event, events_pb2.TableCreated):
        return _evolve(
            state,
            table_id=event.table_id,
            game=event.game,
            currency=event.currency,
            created_by=event.created_by,
            action_time_ms=event.action_time_ms,
            time_bank_ms=event.time_bank_ms,
            time_bank_chunk_ms=event.time_bank_chunk_ms,
            time_bank_refill_ms=event.time_bank_refill_ms,
            time_bank_refill_every_hands=event.time_bank_refill_every_hands,
            time_bank_cap_ms=event.time_bank_cap_ms,
            min_players_to_start=max(2, event.min_players_to_start),
            seed_reveal=event.seed_reveal or events_pb2.SEED_REVEAL_AUDITORS,
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
        # Its round is dealing from it now: no longer a shuffle ahead.
        name = event.name or DECK
        kept = tuple(u for u in state.upcoming if (u.round, u.name) != (event.hand, name))
        names = state.shuffle_names if event.custom_deck else _named(state, name)
        return _evolve(state, upcoming=kept, shuffle_names=names)
    if isinstance(event, events_pb2.ShuffleAnnounced):
        name = event.name or DECK
        announced = Announced(
            event.hand,
            name,
            event.shuffle_id,
            event.commitment,
            event.commit_until_unix_ms,
            positions_root=event.positions_root,
        )
        kept = tuple(u for u in state.upcoming if (u.round, u.name) != (event.hand, name))
        return _evolve(state, upcoming=(*kept, announced), shuffle_names=_named(state, name))
    if isinstance(event, events_pb2.ShuffleRevealed) and event.unused:
        # (a shuffle closed before its round: no longer ahead of anything)
        kept = tuple(u for u in state.upcoming if u.shuffle_id != event.shuffle_id)
        gone = tuple(u for u in state.withdrawn if u.shuffle_id != event.shuffle_id)
        return _evolve(state, upcoming=kept, withdrawn=gone)
    if isinstance(event, events_pb2.ShuffleDealt):
        dealt_before = tuple(d for d in state.dealt if d[0] != event.shuffle_id)
        return _evolve(
            state, dealt=(*dealt_before, (event.shuffle_id, event.position + event.count))
        )
    if isinstance(event, events_pb2.ShuffleRevealed):
        # A round's deck revealed at its end: its own and earlier rounds' ids are settled,
        # and nothing more is dealt from it.
        later = tuple(e for e in state.reannounced if e[0] > event.hand)
        dealing = tuple(d for d in state.dealt if d[0] != event.shuffle_id)
        if later != state.reannounced or dealing != state.dealt:
            return _evolve(state, reannounced=later, dealt=dealing)
        return state
    if isinstance(event, events_pb2.ShuffleWithdrawn):
        name = event.name or DECK
        taken = tuple(u for u in state.upcoming if u.shuffle_id == event.shuffle_id)
        if not taken:
            return state
        count = next((k for r, n, k in state.reannounced if (r, n) == (event.hand, name)), 0)
        others = tuple(e for e in state.reannounced if (e[0], e[1]) != (event.hand, name))
        return _evolve(
            state,
            upcoming=tuple(u for u in state.upcoming if u.shuffle_id != event.shuffle_id),
            withdrawn=(*state.withdrawn, *taken),
            reannounced=(*others, (event.hand, name, count + 1)),
        )
    if isinstance(event, events_pb2.ShuffleSealed):
        name = event.name or DECK
        sealed = tuple(
            replace(
                u,
                sealed=True,
                reveal_until_ms=event.reveal_until_unix_ms,
                committed=tuple(event.committed),
            )
            if (u.round, u.name) == (event.hand, name)
            else u
            for u in state.upcoming
        )
        return _evolve(state, upcoming=sealed)
    if isinstance(event, events_pb2.TimeBankExtended):
        banks = apply_bank(state.banks, TimeBankOpened(event.seat, event.remaining_ms))
        decisions = tuple(
            replace(d, deadline_unix_ms=event.deadline_unix_ms, extended=True)
            if (d.hand, d.action_number) == (event.hand, event.action_number)
            else d
            for d in state.decisions
        )
        return _evolve(state, banks=banks, decisions=decisions)
    if isinstance(event, events_pb2.TableClosing):
        return _evolve(state, closing=True, closed_by=event.closed_by)
    if isinstance(event, events_pb2.TimeBankRefilled):
        refilled = TimeBankOpened(event.seat, event.remaining_ms)
        return _evolve(state, banks=apply_bank(state.banks, refilled))
    return state


def _named(state: ShellState, name: str) -> tuple[str, ...]:
    names = state.shuffle_names
    return names if name in names else (*names, name)
