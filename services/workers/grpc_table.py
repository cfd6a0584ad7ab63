"""The table service as the workers see it: ApplyTimeout, and open deadlines for the sweeper.

Both speak the public TableService API with a `service`-role token. The open deadlines come
from the table service's own fold of each table's event stream (ListTables + GetTableView
give the hand, the action number and `deadline_unix_ms` of the decision the table waits for),
so the workers never decode another deployable's events themselves.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.scheduling.deadlines import Deadline
from services.shared.errors import DomainError, Unavailable
from services.workers.ports import TimeoutOutcome

RPC_TIMEOUT = 5.0
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED}
)


def translate(exc: grpc.RpcError, what: str, service: str = "table service") -> DomainError:
    """A retryable failure as Unavailable; anything else names the status and message."""
    code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
    detail = exc.details() if isinstance(exc, grpc.Call) else str(exc)
    if code in RETRYABLE:
        return Unavailable(f"{what}: {service} {code.name}: {detail}")
    return DomainError(f"{what}: {service} {code.name}: {detail}")


class GrpcTableGateway:
    """`TableGateway` over gRPC. `channel` must carry a service token (channels.connect)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stub = table_pb2_grpc.TableServiceStub(channel)

    def apply_timeout(self, deadline: Deadline) -> TimeoutOutcome:
        request = table_pb2.ApplyTimeoutRequest(
            table_id=deadline.table_id,
            hand_number=deadline.hand_number,
            action_number=deadline.action_number,
        )
        try:
            response = self._stub.ApplyTimeout(request, timeout=RPC_TIMEOUT)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code is grpc.StatusCode.NOT_FOUND:
                return TimeoutOutcome.STALE  # the table or hand is gone: nothing to time out
            if code is grpc.StatusCode.FAILED_PRECONDITION and "not due" in (exc.details() or ""):
                return TimeoutOutcome.NOT_DUE
            raise translate(exc, f"ApplyTimeout {deadline.key}") from exc
        return TimeoutOutcome.APPLIED if response.applied else TimeoutOutcome.STALE


class GrpcPendingDecisions:
    """`PendingDecisions` from the table service: every table's current deadline, if any."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stub = table_pb2_grpc.TableServiceStub(channel)

    def open_deadlines(self) -> Iterator[Deadline]:
        try:
            tables = self._stub.ListTables(table_pb2.ListTablesRequest(), timeout=RPC_TIMEOUT)
            for summary in tables.tables:
                response = self._stub.GetTableView(
                    table_pb2.GetTableViewRequest(table_id=summary.table_id), timeout=RPC_TIMEOUT
                )
                view = response.view
                if view.hand_in_progress and view.to_act >= 0 and view.deadline_unix_ms > 0:
                    yield Deadline.from_unix_ms(
                        view.table_id, view.hand_number, view.action_number, view.deadline_unix_ms
                    )
        except grpc.RpcError as exc:
            raise translate(exc, "rebuilding deadlines") from exc
