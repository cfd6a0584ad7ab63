"""Seating the bots a table asked for at CreateTable, through the public API like any player.

The table records the requested bots in its first event (`TableCreated.bots`) and schedules one
`seat_bot(table, index, policy, difficulty)` task per bot. The task names the bot
`bot-<policy>-<difficulty %>-<table>-s<index>` (`bot_turns.bot_id`), moves its buy-in from
the house's bot bankroll (`house:bots:<currency>`) into the bot's ledger account and joins
with a `bot`-role token.

The bankroll bounds what all bots together may ever take from the house: it is filled once
from `external:world` with `CROUPIER_WORKERS_BOT_BANKROLL` chips (per currency, under a key
naming the amount, so every worker deposits it exactly once), chips that did not find a seat
go back to it, and like any house account it cannot go below zero: once it cannot cover a
buy-in, bots are refused (and tried again later, with backoff) until an operator deposits
more into it. Nothing a player does can make the house issue more.
Issue, join and the return of chips that did not find a seat are keyed by the round they
belong to (`bot_chips`), so a duplicate delivery changes nothing and a bot that does not sit
down keeps nothing. From then on the table schedules the bot's turns as for any bot seat.
"""

from __future__ import annotations

import contextlib
import enum
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import grpc
import structlog

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.identity import bot_buy_in, bot_id
from services.shared import auth
from services.shared.errors import DomainError
from services.workers.bot_chips import (
    Funding,
    Movement,
    funding_of,
    issue_key,
    join_key,
    return_key,
)
from services.workers.grpc_table import RETRYABLE, RPC_TIMEOUT, translate
from services.workers.ports import BotSeatRequest

BOT_TOKEN_TTL = 600
# What the house's bot bankroll starts with, per currency (CROUPIER_WORKERS_BOT_BANKROLL).
DEFAULT_BOT_BANKROLL = 1_000_000_000
BANKROLL_NAME = "bots"
_T = TypeVar("_T")
log = structlog.get_logger(__name__)


class SeatOutcome(enum.Enum):
    SEATED = "seated"
    ALREADY = "already"  # a duplicate delivery: the bot sits there already (or sat and left)
    NO_SEAT = "no-seat"  # the table is full: nothing issued, or this round's chips returned
    REFUSED = "refused"  # the table or ledger refuses this bot for good: chips returned
    GAVE_UP = "gave-up"  # tries ran out (services down, seats lost): this round's chips returned


class SeatLost(DomainError):
    """The seat went to someone else first; this round's chips are back. Try again soon."""


# A refusal that another try can change: the seat was taken (or the table moved) meanwhile.
_RACE_CODES = frozenset(
    {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.ABORTED}
)


# A table closing or closed (CloseTable) seats nobody new.
_CLOSED = frozenset({table_pb2.TABLE_STATUS_CLOSING, table_pb2.TABLE_STATUS_CLOSED})


def bankroll_account(currency: str) -> str:
    """The house's account every requested bot's chips come from (and unused ones go back to)."""
    return f"house:{BANKROLL_NAME}:{currency}"


def seated_bot_id(table_id: str, index: int, policy: str, difficulty: float) -> str:
    return bot_id(policy, f"{table_id}-s{index}", difficulty)


def never_bought_in(
    table_id: str, requested: Sequence[tuple[str, float]], bots_seated: Iterable[str]
) -> list[BotSeatRequest]:
    """The requested bots that never bought in at the table, in request order."""
    ever = set(bots_seated)
    return [
        BotSeatRequest(table_id, index, policy, difficulty)
        for index, (policy, difficulty) in enumerate(requested)
        if seated_bot_id(table_id, index, policy, difficulty) not in ever
    ]


def unseated_bots(
    table_id: str,
    requested: Sequence[tuple[str, float]],
    bots_seated: Iterable[str],
    free_seats: int,
) -> list[BotSeatRequest]:
    """The requested bots to seat again: those that never bought in at the table.

    A bot that sat down once and left (or went broke) is not brought back: the trigger is
    only re-sent when it was lost. With no free seat there is nothing to try now.
    """
    if free_seats <= 0:
        return []
    return never_bought_in(table_id, requested, bots_seated)[:free_seats]


def all_bought_in(
    table_id: str, requested: Sequence[tuple[str, float]], bots_seated: Iterable[str]
) -> bool:
    """Every requested bot has bought in at the table (or none was requested). For good:
    the requested bots are fixed at CreateTable and `bots_seated` only ever grows."""
    return not never_bought_in(table_id, requested, bots_seated)


def _sits_or_sat(view: table_pb2.TableView, player: str) -> bool:
    # Seated now, or seated once and gone since (left, went broke): a late duplicate must not
    # bring back a bot that left, so "ever bought in here" counts.
    return player in view.bots_seated or any(s.player_id == player for s in view.seats)


def free_seats(view: table_pb2.TableView) -> list[int]:
    taken = {s.seat for s in view.seats if s.player_id}
    return [i for i in range(view.options.seats) if i not in taken]


def _code(exc: grpc.RpcError) -> grpc.StatusCode | None:
    return exc.code() if isinstance(exc, grpc.Call) else None


def _details(exc: grpc.RpcError) -> str:
    return (exc.details() or "") if isinstance(exc, grpc.Call) else str(exc)


@dataclass(frozen=True, slots=True)
class _Bot:
    table_id: str
    index: int
    player: str

    def account(self, currency: str) -> str:
        return f"player:{self.player}:{currency}"


class _Refused(DomainError):
    """The ledger refuses this bot's account or chips for good (e.g. an invalid name)."""


def buy_in_for(options: table_pb2.TableOptions) -> int:
    stake = options.spit.stake if options.HasField("spit") else 0
    return bot_buy_in(
        options.big_blind, options.ante, options.min_buy_in, options.max_buy_in, stake
    )


class GrpcBotSeater:
    """Funds and seats one requested bot. `ledger` must carry a service token.

    Every round of chips it issues is closed by the seat or by a return (`bot_chips`): a bot
    that does not sit down keeps nothing.
    """

    def __init__(
        self,
        table: grpc.Channel,
        ledger: grpc.Channel,
        auth_key: str | auth.Credentials,
        bankroll: int = DEFAULT_BOT_BANKROLL,
    ) -> None:
        self._table = table_pb2_grpc.TableServiceStub(table)
        self._ledger = ledger_pb2_grpc.LedgerServiceStub(ledger)
        self._key = auth_key
        self._bankroll = bankroll
        self._funded: set[str] = set()  # currencies whose bankroll this process deposited

    def seat(self, table_id: str, index: int, policy: str, difficulty: float) -> SeatOutcome:
        """Seat the bot, or say why not. Raises `SeatLost` (try again) and `Unavailable`."""
        bot = _Bot(table_id, index, seated_bot_id(table_id, index, policy, difficulty))
        metadata = self._metadata(bot)
        view = self._view(bot, metadata)
        if _sits_or_sat(view, bot.player):
            return SeatOutcome.ALREADY
        currency = view.options.currency or "CHIP"
        try:
            self._open_account(bot, currency)
            funding = self._funding(bot, currency)
        except _Refused:
            return SeatOutcome.REFUSED  # no account for this bot: nothing was issued
        if view.status in _CLOSED:  # the table takes nobody new: no try can change that
            self._close(bot, funding, currency)
            return SeatOutcome.REFUSED
        free = free_seats(view)
        if not free:
            self._close(bot, funding, currency)
            return SeatOutcome.NO_SEAT
        amount = funding.issued or buy_in_for(view.options)
        if not funding.issued:
            try:
                self._issue(bot, issue_key(table_id, index, funding.round), amount, currency)
            except _Refused:
                return SeatOutcome.REFUSED
        # Its own seat number when free, so the table's bots do not race for one seat.
        seat = index if index in free else free[0]
        try:
            self._table.JoinTable(
                table_pb2.JoinTableRequest(
                    table_id=table_id,
                    seat=seat,
                    buy_in=amount,
                    idempotency_key=join_key(index, funding.round, funding.voids),
                ),
                metadata=metadata,
                timeout=RPC_TIMEOUT,
            )
        except grpc.RpcError as exc:
            code = _code(exc)
            if code in RETRYABLE:
                raise translate(exc, f"seating bot {bot.player}") from exc
            # Refused: this round will not seat the bot. A duplicate delivery may have
            # seated it meanwhile (with these chips); otherwise the chips go back.
            if _sits_or_sat(self._view(bot, metadata), bot.player):
                return SeatOutcome.ALREADY
            self._close(bot, Funding(funding.round, amount, funding.voids), currency)
            if code in _RACE_CODES:
                raise SeatLost(
                    f"bot {bot.player} lost seat {seat} at table {table_id}: {_details(exc)}"
                ) from exc
            return SeatOutcome.REFUSED
        return SeatOutcome.SEATED

    def give_up(self, table_id: str, index: int, policy: str, difficulty: float) -> SeatOutcome:
        """Stop trying for now: return the open round's chips unless the bot sits already.
        Raises `Unavailable` when the table or ledger cannot be reached (the chips then wait
        in the bot's account for the next try, which finds them issued and uses them)."""
        bot = _Bot(table_id, index, seated_bot_id(table_id, index, policy, difficulty))
        view = self._view(bot, self._metadata(bot))
        if _sits_or_sat(view, bot.player):
            return SeatOutcome.ALREADY
        currency = view.options.currency or "CHIP"
        # Reads the account without opening it, so a bot whose tries never got that far is
        # not left with an empty one. Refused (NOT_FOUND: never opened; or a name the
        # ledger will not take): nothing was ever issued, nothing to return.
        with contextlib.suppress(_Refused):
            self._close(bot, self._funding(bot, currency), currency)
        return SeatOutcome.GAVE_UP

    def _metadata(self, bot: _Bot) -> tuple[tuple[str, str], ...]:
        token = auth.issue_token(self._key, bot.player, auth.Role.BOT, BOT_TOKEN_TTL)
        return auth.bearer_metadata(token)

    def _view(self, bot: _Bot, metadata: tuple[tuple[str, str], ...]) -> table_pb2.TableView:
        try:
            return self._table.GetTableView(
                table_pb2.GetTableViewRequest(table_id=bot.table_id),
                metadata=metadata,
                timeout=RPC_TIMEOUT,
            ).view
        except grpc.RpcError as exc:
            raise translate(exc, f"seating bot {bot.player}") from exc

    def _open_account(self, bot: _Bot, currency: str) -> None:
        """Open the bot's account (its chips are issued into it); an open one stays as is."""

        def open_account() -> object:
            try:
                return self._ledger.OpenAccount(
                    ledger_pb2.OpenAccountRequest(
                        kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=bot.player, currency=currency
                    ),
                    timeout=RPC_TIMEOUT,
                )
            except grpc.RpcError as exc:
                if _code(exc) is not grpc.StatusCode.ALREADY_EXISTS:
                    raise
                return None

        self._ledger_call(bot, "opening its account", open_account)

    def _funding(self, bot: _Bot, currency: str) -> Funding:
        """The bot's open round, from its account's movements (read only: `_Refused` with
        NOT_FOUND when the account was never opened)."""
        account = bot.account(currency)
        movements: list[Movement] = []
        request = ledger_pb2.HistoryRequest(account_id=account, limit=500)
        while True:
            page = self._ledger_call(
                bot,
                "reading its account",
                functools.partial(self._ledger.History, request, timeout=RPC_TIMEOUT),
            )
            movements += [
                Movement(
                    m.reference,
                    m.balance_delta,
                    m.kind == ledger_pb2.MOVEMENT_KIND_RESERVATION_VOIDED,
                )
                for m in page.movements
            ]
            if not page.next_cursor:
                return funding_of(bot.table_id, bot.index, movements)
            request = ledger_pb2.HistoryRequest(
                account_id=account, limit=500, before=page.next_cursor
            )

    def _close(self, bot: _Bot, funding: Funding, currency: str) -> None:
        """Return the round's chips to the world they came from; nothing when none are out.
        The key names the round, so a second return of it is the ledger's replay."""
        if not funding.issued:
            return
        self._move(
            bot,
            "returning its buy-in",
            return_key(bot.table_id, bot.index, funding.round),
            bot.account(currency),
            bankroll_account(currency),
            funding.issued,
            currency,
            "bot not seated: buy-in returned",
        )

    def _issue(self, bot: _Bot, key: str, amount: int, currency: str) -> None:
        """The bot's buy-in from the house's bankroll; `_Refused` when the bankroll cannot
        cover it (no chips move), `Unavailable` when the ledger cannot be reached."""
        self._fund_bankroll(bot, currency)
        try:
            self._move(
                bot,
                "taking its buy-in from the house's bot bankroll",
                key,
                bankroll_account(currency),
                bot.account(currency),
                amount,
                currency,
                "bot buy-in",
            )
        except DomainError as exc:
            # (the bankroll is the only account of the two that can run short)
            if f"insufficient funds in {bankroll_account(currency)}" not in exc.message:
                raise
            log.warning(
                "the house's bot bankroll cannot cover a bot's buy-in; deposit more into "
                f"{bankroll_account(currency)}",
                bot=bot.player,
                table=bot.table_id,
                buy_in=amount,
            )
            raise _Refused(exc.message) from exc

    def _fund_bankroll(self, bot: _Bot, currency: str) -> None:
        """Open the bankroll account and deposit its first fill (once per currency, ever:
        the key names the amount; a worker restarted with another amount adds that once)."""
        if currency in self._funded:
            return
        account = bankroll_account(currency)

        def open_account() -> object:
            try:
                return self._ledger.OpenAccount(
                    ledger_pb2.OpenAccountRequest(
                        kind=ledger_pb2.ACCOUNT_KIND_HOUSE, name=BANKROLL_NAME, currency=currency
                    ),
                    timeout=RPC_TIMEOUT,
                )
            except grpc.RpcError as exc:
                if _code(exc) is not grpc.StatusCode.ALREADY_EXISTS:
                    raise
                return None

        self._ledger_call(bot, "opening the house's bot bankroll", open_account)
        if self._bankroll > 0:
            self._ledger_call(
                bot,
                "filling the house's bot bankroll",
                lambda: self._ledger.Deposit(
                    ledger_pb2.DepositRequest(
                        idempotency_key=f"bot-bankroll/{currency}/{self._bankroll}",
                        account_id=account,
                        amount=chips_pb2.ChipAmount(currency=currency, amount=self._bankroll),
                        metadata=ledger_pb2.EntryMetadata(reason="bot bankroll"),
                    ),
                    timeout=RPC_TIMEOUT,
                ),
            )
        self._funded.add(currency)

    def _move(
        self,
        bot: _Bot,
        what: str,
        key: str,
        source: str,
        target: str,
        amount: int,
        currency: str,
        reason: str,
    ) -> None:
        chips = chips_pb2.ChipAmount(currency=currency, amount=amount)
        self._ledger_call(
            bot,
            what,
            lambda: self._ledger.Transfer(
                ledger_pb2.TransferRequest(
                    idempotency_key=key,
                    legs=[
                        ledger_pb2.Leg(
                            account_id=source, side=ledger_pb2.LEG_SIDE_DEBIT, amount=chips
                        ),
                        ledger_pb2.Leg(
                            account_id=target, side=ledger_pb2.LEG_SIDE_CREDIT, amount=chips
                        ),
                    ],
                    metadata=ledger_pb2.EntryMetadata(table_id=bot.table_id, reason=reason),
                ),
                timeout=RPC_TIMEOUT,
            ),
        )

    def _ledger_call(self, bot: _Bot, what: str, call: Callable[[], _T]) -> _T:
        """Down or busy -> Unavailable (retry); INVALID_ARGUMENT and the like -> _Refused."""
        try:
            return call()
        except grpc.RpcError as exc:
            code = _code(exc)
            failure = translate(exc, f"bot {bot.player} {what}", service="ledger")
            if code in RETRYABLE or code is grpc.StatusCode.FAILED_PRECONDITION:
                # FAILED_PRECONDITION: funds held by a join still in flight; look again later.
                raise failure from exc
            raise _Refused(failure.message) from exc
