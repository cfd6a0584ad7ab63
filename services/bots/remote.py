"""One bot decision over the public TableService API: GetTableView -> choose -> Act.

Shared by the Celery bot task (built-in bots, which send the Act on the bot's Play stream:
play_acts.ActsOnPlay) and the SDK (external bots); a stub's unary Act works the same. The
action is sent with the view's version as the expected version and a caller-chosen
idempotency key, so a retried or duplicated decision is applied once; a version that moved
on (someone else's event) makes it look again, a decision that is no longer the bot's is
left alone.

The chooser gets both forms of the one view it decides on, the `BotView` and the `TableView`
it was built from, on every attempt: after an ABORTED Act both are the view read again.
"""

from __future__ import annotations

import enum
import logging
import random
from collections.abc import Callable

import grpc

from croupier.table.v1 import table_pb2
from services.bots.betting import check_or_fold
from services.bots.play_acts import TableCalls
from services.bots.proto_view import is_my_decision, to_act_request, to_bot_view
from services.bots.view import BotAction, BotView
from services.shared.errors import Unavailable

log = logging.getLogger(__name__)
Metadata = tuple[tuple[str, str | bytes], ...]
# (the bot's view, the TableView it was built from, the turn's generator) -> the action.
Chooser = Callable[[BotView, table_pb2.TableView, random.Random], BotAction]
# Told about every action the table refused (status name, what was sent, the table's words).
OnRefused = Callable[[str], None]
RPC_TIMEOUT = 5.0
ATTEMPTS = 3


class TurnResult(enum.Enum):
    ACTED = "acted"
    STALE = "stale"


def play_turn(
    stub: TableCalls,
    metadata: Metadata,
    table_id: str,
    choose: Chooser,
    rng: random.Random,
    idempotency_key: str,
    *,
    hand_number: int | None = None,
    action_number: int | None = None,
    on_refused: OnRefused | None = None,
    view: table_pb2.TableView | None = None,
    on_view: Callable[[table_pb2.TableView], object] | None = None,
) -> TurnResult:
    """Act once if the table waits for this bot (at `hand_number`/`action_number` when given).

    `on_refused` hears of every refusal the table answers that a correct bot never causes
    here: INVALID_ARGUMENT (an illegal action) and FAILED_PRECONDITION (not our decision any
    more: timed out, or the hand moved on). Both are still handled as before; the callback
    lets a caller that must see every action accepted (the soak tests) fail on them.
    `view`, when given, is a view the caller has just read: the first attempt decides on it
    instead of reading it again (the SDK reads one to know the decision is its own).
    `on_view` sees every view the turn reads (the workers' bots answer its entropy rounds).

    Raises Unavailable when the table cannot be reached, or when another write beat every
    attempt's Act (ABORTED each time) while the decision stayed ours: try again shortly."""
    for attempt in range(ATTEMPTS):
        if attempt or view is None:
            try:
                view = stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=table_id),
                    metadata=metadata,
                    timeout=RPC_TIMEOUT,
                ).view
            except grpc.RpcError as exc:
                _raise_if_retryable(exc)
                raise
            if on_view is not None:
                on_view(view)
        if not is_my_decision(view):
            return TurnResult.STALE
        if hand_number is not None and view.hand_number != hand_number:
            return TurnResult.STALE
        if action_number is not None and view.action_number != action_number:
            return TurnResult.STALE
        bot_view = to_bot_view(view)
        action = choose(bot_view, view, rng)
        try:
            stub.Act(
                to_act_request(view, action, idempotency_key),
                metadata=metadata,
                timeout=RPC_TIMEOUT,
            )
            return TurnResult.ACTED
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code is grpc.StatusCode.ABORTED:
                continue  # another event landed first: look again
            if code is grpc.StatusCode.FAILED_PRECONDITION:
                _tell(on_refused, code, action, view, exc)
                return TurnResult.STALE
            if code is grpc.StatusCode.INVALID_ARGUMENT:
                # A policy bug must not stall the table: log it and take the safe action.
                log.error("bot action %s refused at %s: %s", action, table_id, _details(exc))
                _tell(on_refused, code, action, view, exc)
                safe = to_act_request(view, check_or_fold(bot_view), idempotency_key + "/safe")
                stub.Act(safe, metadata=metadata, timeout=RPC_TIMEOUT)
                return TurnResult.ACTED
            _raise_if_retryable(exc)
            raise
    # Every attempt lost to another write (a burst of top-ups, joins, sit-outs): the decision
    # is still this bot's, and nobody else will ask for it again (the table re-requests a
    # decision only when the hand changes). Reporting it stale would leave the table waiting
    # for the timeout; "busy" makes the caller try again shortly (the worker's task retries,
    # the SDK resumes its stream and looks again).
    assert view is not None  # every attempt read one (or was given one)
    raise Unavailable(
        f"table {table_id} changed under {ATTEMPTS} attempts at hand {view.hand_number}"
        f" decision {view.action_number}: act again shortly"
    )


def _tell(
    on_refused: OnRefused | None,
    code: grpc.StatusCode,
    action: BotAction,
    view: table_pb2.TableView,
    exc: grpc.RpcError,
) -> None:
    if on_refused is not None:
        on_refused(
            f"{code.name}: {action} at table {view.table_id} hand {view.hand_number} "
            f"action {view.action_number} (version {view.version}): {_details(exc)}"
        )


def _details(exc: grpc.RpcError) -> str:
    return (exc.details() or "") if isinstance(exc, grpc.Call) else str(exc)


def _raise_if_retryable(exc: grpc.RpcError) -> None:
    """Turn "the table service is unreachable right now" into Unavailable (callers retry)."""
    code = exc.code() if isinstance(exc, grpc.Call) else None
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        raise Unavailable(f"table service {code.name}: {_details(exc)}") from exc
