"""Chips onto a table and off it: joining (a seat and a buy-in) and topping up.

A buy-in is the ledger's two-phase transfer around one append: Reserve the chips in the
player's account, append BuyInReserved with the game's own events (the seat taken, the chips
added), then Post the reservation to the table's escrow as a process step (steps.py), so a
crash between any two of these is finished by whoever loads the table next. A refusal voids
the hold, so a refused join or top-up never leaves chips reserved. Cash-outs are process
steps too: the shell records one for each event that sends chips away with a player.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from croupier.table.v1 import events_pb2
from services.games import contract as c
from services.games.errors import NotAllowedNow, RuleViolation
from services.shared import errors
from services.table.command_keys import scoped
from services.table.commands import CommandPath, domain_error
from services.table.ports import LedgerPort
from services.table.retrier import Retrier
from services.table.shell import Table
from services.table.tables import Tables


@dataclass(frozen=True, slots=True)
class Seated:
    """What JoinTable did: the seat taken and the table's version after it."""

    seat: int
    version: int


@dataclass(frozen=True, slots=True)
class ToppedUp:
    """What TopUp did: the seat's stack and the table's version after it."""

    stack: int
    version: int


def seat_of(table: Table, player: str) -> int | None:
    return table.shell.seat_of(player)


def stack_of(table: Table, seat: int) -> int:
    return next((s.stack for s in table.game.rules.seats(table.state) if s.seat == seat), 0)


def free_seat(table: Table) -> int:
    """The first free seat (the seat count when none is: the game refuses it)."""
    taken = {seat for seat, _ in table.shell.players}
    count = table.game.seat_count(table.state)
    return next((i for i in range(count) if i not in taken), count)


def refuse_if_closing(table: Table) -> None:
    """A closing table takes no new player and no more chips."""
    if table.shell.closing:
        state = "closed" if table.shell.closed else "closing"
        raise NotAllowedNow(
            f"table {table.table_id} is {state}: it takes no new players or chips; "
            "join another table"
        )


def own_seat(table: Table, player: str) -> int:
    seat = seat_of(table, player)
    if seat is None:
        raise errors.FailedPrecondition(f"{player} has no seat at table {table.table_id}")
    return seat


class BuyIns:
    def __init__(
        self, tables: Tables, commands: CommandPath, retrier: Retrier, ledger: LedgerPort
    ) -> None:
        self.tables = tables
        self.commands = commands
        self.retrier = retrier
        self.ledger = ledger

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
    ) -> Seated:
        """Reserve the buy-in, seat the player (one append), then post it (a process step).
        The buy-in comes from the player's own account unless `any_account` (a service)."""
        table = self.tables.load(table_id)
        own = self.ledger.player_account(player, table.shell.currency)
        if account and account != own and not any_account:
            # A player account's name is its owner's subject (docs/ledger.md).
            raise errors.PermissionDenied(
                f"{player} may not buy in from {account}: players buy in only from their own "
                f"account {own} (or leave account_id empty); only the platform's services "
                "name another account"
            )
        already = seat_of(table, player)
        command_key = f"{table_id}/join/{scoped(player)}/{scoped(key)}"
        if already is not None and table.shell.version_of_key(command_key) is not None:
            self.tables.confirm(table_id)
            return Seated(already, table.shell.version_of_key(command_key) or table.version)
        if seat < 0:
            seat = free_seat(table)
            if seat >= table.game.seat_count(table.state):
                raise errors.FailedPrecondition(
                    f"table {table_id} is full: all {seat} seats are taken"
                )
        account = account or own
        sit = c.SitDown(seat, player, amount)
        table, version = self._buy_in(
            table, command_key, sit, seat, player, amount, account, is_bot
        )
        self.retrier.keep_going(table_id, table)
        return Seated(seat, version)

    def top_up(self, table_id: str, player: str, amount: int, key: str) -> ToppedUp:
        table = self.tables.load(table_id)
        seat = own_seat(table, player)
        command_key = f"{table_id}/topup/{scoped(player)}/{scoped(key)}"
        done = table.shell.version_of_key(command_key)
        if done is not None:
            self.tables.confirm(table_id)
        else:
            currency = table.shell.currency
            account = table.shell.account_of(player) or self.ledger.player_account(player, currency)
            top_up = c.AddChips(seat, amount, player)
            table, done = self._buy_in(
                table, command_key, top_up, seat, player, amount, account, False
            )
            self.retrier.keep_going(table_id, table)
        # The stack as the command left it (a top-up during a hand applies after it).
        mine = seat_of(table, player)
        return ToppedUp(stack_of(table, mine) if mine is not None else 0, done)

    def _buy_in(
        self,
        table: Table,
        command_key: str,
        command: c.SitDown | c.AddChips,
        seat: int,
        player: str,
        amount: int,
        account: str,
        is_bot: bool,
    ) -> tuple[Table, int]:
        """Chips onto the table: check the rules, Reserve in the ledger, then one append of
        BuyInReserved + the engine's events (the Post is a process step). A refusal at either
        check voids the hold, so a refused join or top-up never leaves chips reserved."""
        refusal = "seat not taken" if isinstance(command, c.SitDown) else "top-up refused"
        try:
            refuse_if_closing(table)
            table.game.rules.decide(table.state, command)  # fail before reserving
        except RuleViolation as violation:
            self._release_orphan(command_key, refusal)
            raise domain_error(violation) from violation
        currency = table.shell.currency
        hold = self.ledger.reserve_buy_in(command_key, table.table_id, account, amount, currency)
        # A retried key gets the ledger's replay: the original reservation, whose status says
        # whether it was voided since (the first attempt was refused) or posted long ago.
        # Seating on such a hold would put chips on the table that never reached its escrow.
        if hold.status != "pending":
            latest = self.tables.load(table.table_id)
            done = latest.shell.version_of_key(command_key)
            if done is not None:  # a concurrent retry of this command already succeeded
                self.tables.confirm(table.table_id)
                return latest, done
            again = "join" if isinstance(command, c.SitDown) else "top up"
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
            refuse_if_closing(t)  # (closed since the check above: the hold is voided below)
            return [reserved, *t.game.rules.decide(t.state, command)]

        try:
            return self.commands.execute(table.table_id, command_key, player, decide)
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
