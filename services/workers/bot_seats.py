"""Seating the bots a table asked for at CreateTable, through the public API like any player.

The table records the requested bots in its first event (`TableCreated.bots`) and schedules one
`seat_bot(table, index, policy, difficulty)` task per bot. The task names the bot
`bot-<policy>-<difficulty %>-<table>-s<index>` (`bot_turns.bot_id`), deposits its buy-in in
the ledger (idempotent key per table and index: these are the house's chips for its bots) and
joins with a `bot`-role token and a fixed idempotency key, so a duplicate delivery changes
nothing. From then on the table schedules the bot's turns as for any bot seat.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

import grpc

from croupier.common.v1 import chips_pb2
from croupier.ledger.v1 import ledger_pb2, ledger_pb2_grpc
from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared import auth, errors
from services.workers.bot_turns import bot_id
from services.workers.grpc_table import RPC_TIMEOUT, translate
from services.workers.ports import BotSeatRequest

BOT_TOKEN_TTL = 600
# A seated bot brings 100 big blinds (or 200 antes), within the table's buy-in range.
BIG_BLINDS = 100


class SeatOutcome(enum.Enum):
    SEATED = "seated"
    ALREADY = "already"  # a duplicate delivery: the bot sits there already


def seated_bot_id(table_id: str, index: int, policy: str, difficulty: float) -> str:
    return bot_id(policy, f"{table_id}-s{index}", difficulty)


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
    ever = set(bots_seated)
    missing = [
        BotSeatRequest(table_id, index, policy, difficulty)
        for index, (policy, difficulty) in enumerate(requested)
        if seated_bot_id(table_id, index, policy, difficulty) not in ever
    ]
    return missing[:free_seats]


def buy_in_for(options: table_pb2.TableOptions) -> int:
    unit = options.big_blind or 2 * options.ante or 1
    target = BIG_BLINDS * unit
    if options.max_buy_in:
        target = min(target, options.max_buy_in)
    return max(target, options.min_buy_in)


class GrpcBotSeater:
    """Funds and seats one requested bot. `ledger` must carry a service token."""

    def __init__(self, table: grpc.Channel, ledger: grpc.Channel, auth_key: str) -> None:
        self._table = table_pb2_grpc.TableServiceStub(table)
        self._ledger = ledger_pb2_grpc.LedgerServiceStub(ledger)
        self._key = auth_key

    def seat(self, table_id: str, index: int, policy: str, difficulty: float) -> SeatOutcome:
        player = seated_bot_id(table_id, index, policy, difficulty)
        token = auth.issue_token(self._key, player, auth.Role.BOT, BOT_TOKEN_TTL)
        metadata = auth.bearer_metadata(token)
        try:
            view = self._table.GetTableView(
                table_pb2.GetTableViewRequest(table_id=table_id),
                metadata=metadata,
                timeout=RPC_TIMEOUT,
            ).view
            # Seated now, or seated once and gone since (left, went broke): a late duplicate
            # must not bring a bot back that left, so "ever bought in here" counts.
            if player in view.bots_seated or any(s.player_id == player for s in view.seats):
                return SeatOutcome.ALREADY
            taken = {s.seat for s in view.seats if s.player_id}
            free = [i for i in range(view.options.seats) if i not in taken]
            if not free:
                raise errors.FailedPrecondition(f"table {table_id} has no free seat for {player}")
            # Its own seat number when free, so the table's bots do not race for one seat.
            seat = index if index in free else free[0]
            amount = buy_in_for(view.options)
            currency = view.options.currency or "CHIP"
            self._fund(player, amount, currency, f"seat-bot/{table_id}/{index}")
            self._table.JoinTable(
                table_pb2.JoinTableRequest(
                    table_id=table_id,
                    seat=seat,
                    buy_in=amount,
                    idempotency_key=f"seat-bot-{index}",
                ),
                metadata=metadata,
                timeout=RPC_TIMEOUT,
            )
        except grpc.RpcError as exc:
            raise translate(exc, f"seating bot {player}") from exc
        return SeatOutcome.SEATED

    def _fund(self, player: str, amount: int, currency: str, key: str) -> None:
        try:
            self._ledger.OpenAccount(
                ledger_pb2.OpenAccountRequest(
                    kind=ledger_pb2.ACCOUNT_KIND_PLAYER, name=player, currency=currency
                ),
                timeout=RPC_TIMEOUT,
            )
        except grpc.RpcError as exc:
            if not isinstance(exc, grpc.Call) or exc.code() is not grpc.StatusCode.ALREADY_EXISTS:
                raise
        self._ledger.Deposit(
            ledger_pb2.DepositRequest(
                idempotency_key=key,
                account_id=f"player:{player}:{currency}",
                amount=chips_pb2.ChipAmount(currency=currency, amount=amount),
            ),
            timeout=RPC_TIMEOUT,
        )


class GrpcPendingBotSeats:
    """`PendingBotSeats` from the table service: ListTables, then each table's view, which
    names its requested bots and every bot that ever bought in. `channel` carries a service
    token."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stub = table_pb2_grpc.TableServiceStub(channel)

    def unseated_bots(self) -> list[BotSeatRequest]:
        missing: list[BotSeatRequest] = []
        try:
            tables = self._stub.ListTables(table_pb2.ListTablesRequest(), timeout=RPC_TIMEOUT)
            for summary in tables.tables:
                if not summary.options.seats or summary.players >= summary.options.seats:
                    continue  # full: no requested bot can sit down now (and no view needed)
                view = self._stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=summary.table_id), timeout=RPC_TIMEOUT
                ).view
                if not view.requested_bots:
                    continue
                requested = [(b.policy, b.difficulty) for b in view.requested_bots]
                free = view.options.seats - sum(1 for s in view.seats if s.player_id)
                missing += unseated_bots(view.table_id, requested, view.bots_seated, free)
        except grpc.RpcError as exc:
            raise translate(exc, "looking for unseated bots") from exc
        return missing
