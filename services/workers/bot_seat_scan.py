"""The sweeper's scan for requested bots that never sat down, over the public TableService API.

`ListTables` gives every table's seat count and players; only a table with a free seat can
seat a bot, and only its full view (`GetTableView`) names the requested bots and every bot
that ever bought in. A table whose requested bots have all bought in (or that asked for none)
is done for good: requested bots are fixed at CreateTable and `bots_seated` only grows. The
scan remembers such tables and never reads their view again, so a rebuild reads the views of
the tables still waiting for a bot, not of every table with a free seat. The memory is per
worker process; a new process reads each table once more.
"""

from __future__ import annotations

import threading

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.workers.bot_seats import all_bought_in, free_seats, unseated_bots
from services.workers.grpc_table import RPC_TIMEOUT, translate
from services.workers.ports import BotSeatRequest


class GrpcPendingBotSeats:
    """`PendingBotSeats` from the table service. `channel` carries a service token."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stub = table_pb2_grpc.TableServiceStub(channel)
        self._done: set[str] = set()  # tables whose requested bots have all bought in
        self._lock = threading.Lock()

    def unseated_bots(self) -> list[BotSeatRequest]:
        missing: list[BotSeatRequest] = []
        try:
            tables = self._stub.ListTables(table_pb2.ListTablesRequest(), timeout=RPC_TIMEOUT)
            for summary in tables.tables:
                with self._lock:
                    if summary.table_id in self._done:
                        continue
                if not summary.options.seats or summary.players >= summary.options.seats:
                    continue  # full: no requested bot can sit down now (and no view needed)
                view = self._stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=summary.table_id), timeout=RPC_TIMEOUT
                ).view
                requested = [(b.policy, b.difficulty) for b in view.requested_bots]
                if all_bought_in(view.table_id, requested, view.bots_seated):
                    with self._lock:
                        self._done.add(view.table_id)
                    continue
                free = len(free_seats(view))
                missing += unseated_bots(view.table_id, requested, view.bots_seated, free)
        except grpc.RpcError as exc:
            raise translate(exc, "looking for unseated bots") from exc
        return missing
