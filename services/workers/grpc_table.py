"""The table service as the workers see it: ApplyTimeout (with a `service`-role token), and
how its gRPC failures read to the tasks (`translate`). The scan of every table that rebuilds
the indexes is `table_scan.py`."""

from __future__ import annotations

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
            deadline_id=f"{deadline.hand_number}/{deadline.action_number}",
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
