"""A scan of every table through the public TableService API, for rebuilding the indexes.

The scheduler writes every trigger into an index before sending it (the deadline index, the
bot-turn and seat-bot resend indexes), so the sweeper finds lost triggers without reading any
table. This scan is for the index itself going missing (a Redis restored from an old backup,
a key deleted by hand): a worker process runs it once, at its first sweep
(`CROUPIER_WORKERS_REBUILD_INTERVAL` > 0 repeats it), and it reads every table once:
`ListTables`, then each table's view, which gives the decision it waits for (hand, action
number, deadline, whether the seat to act is a bot) and the bots it asked for that never sat
down. The workers never decode another deployable's events themselves.
"""

from __future__ import annotations

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.bots.hosted import REALTIME_GAME_OPTIONS, is_hosted
from services.bots.identity import bot_identity
from services.scheduling.bot_turn import BotTurn
from services.scheduling.deadlines import Deadline
from services.workers.bot_seats import free_seats, unseated_bots
from services.workers.grpc_table import RPC_TIMEOUT, translate
from services.workers.ports import OpenWork


def open_work(view: table_pb2.TableView, into: OpenWork) -> None:
    """Add the triggers one table's view waits for to `into` (pure)."""
    # Every open decision with a time limit (several at once in some games: one per seat);
    # a real-time game's are swept.
    swept = view.options.WhichOneof("game_options") in REALTIME_GAME_OPTIONS
    deadlines = into.swept_deadlines if swept else into.deadlines
    for open_ in view.deadlines:
        decision = _decision_of(open_.id)
        if decision is not None and open_.deadline_unix_ms > 0:
            deadlines.append(
                Deadline.from_unix_ms(view.table_id, *decision, open_.deadline_unix_ms)
            )
    if view.hand_in_progress and view.to_act >= 0:
        to_act = next((s for s in view.seats if s.seat == view.to_act), None)
        policy, difficulty = bot_identity(to_act.player_id if to_act is not None else "")
        # (a hosted bot, real-time, has no turns: the bot host plays it)
        if to_act is not None and to_act.is_bot and to_act.player_id and not is_hosted(policy):
            into.bot_turns.append(
                BotTurn(
                    view.table_id,
                    view.hand_number,
                    view.action_number,
                    to_act.seat,
                    to_act.player_id,
                    policy,
                    difficulty,
                )
            )
    requested = [(b.policy, b.difficulty) for b in view.requested_bots]
    if requested:
        free = len(free_seats(view))
        into.unseated_bots += unseated_bots(view.table_id, requested, view.bots_seated, free)


def _decision_of(deadline_id: str) -> tuple[int, int] | None:
    """(round, decision number) from a deadline id "<round>/<n>"; None if not that form."""
    round_, _, number = deadline_id.partition("/")
    if not (round_.isdigit() and number.isdigit()):
        return None
    return int(round_), int(number)


class GrpcTableScan:
    """`TableScan` over gRPC. `channel` must carry a service token (channels.connect)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stub = table_pb2_grpc.TableServiceStub(channel)

    def scan(self) -> OpenWork:
        work = OpenWork()
        try:
            tables = self._stub.ListTables(table_pb2.ListTablesRequest(), timeout=RPC_TIMEOUT)
            for summary in tables.tables:
                view = self._stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=summary.table_id), timeout=RPC_TIMEOUT
                ).view
                open_work(view, work)
        except grpc.RpcError as exc:
            raise translate(exc, "rebuilding the indexes from the tables") from exc
        return work
