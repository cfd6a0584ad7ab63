"""A TableService that only knows about decisions and records every ApplyTimeout call.

It stands in for the table service where a test is about the *trigger* machinery (a real
Celery worker, Redis, kill -9, duplicates) and needs exact timestamps of every application.
Its rule is the table service's: a timeout applies only while its decision is open, once.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc
from services.shared.auth import Role, current_principal
from services.shared.grpc_server import ServiceSpec, create_server
from services.shared.settings import RuntimeSettings

Decision = tuple[str, int, int]


@dataclass
class Application:
    decision: Decision
    at: float


@dataclass
class RecordingTable(table_pb2_grpc.TableServiceServicer):
    open: dict[Decision, float] = field(default_factory=dict)  # decision -> due time
    applied: list[Application] = field(default_factory=list)
    calls: list[tuple[Decision, float]] = field(default_factory=list)
    early: list[tuple[Decision, float]] = field(default_factory=list)
    # Every player action: (decision, when it reached the table, whether it was still open).
    acts: list[tuple[Decision, float, bool]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    port: int = 0  # where it serves, once started

    def request(self, decision: Decision, due_at: float) -> None:
        with self.lock:
            self.open[decision] = due_at

    def resolve(self, decision: Decision) -> bool:
        """The player acted: True when the decision was still open."""
        with self.lock:
            still_open = self.open.pop(decision, None) is not None
            self.acts.append((decision, time.time(), still_open))
            return still_open

    def ApplyTimeout(  # noqa: N802 (gRPC method name)
        self, request: table_pb2.ApplyTimeoutRequest, context: grpc.ServicerContext
    ) -> table_pb2.ApplyTimeoutResponse:
        current_principal().require(Role.SERVICE)
        decision = (request.table_id, request.hand_number, request.action_number)
        now = time.time()
        with self.lock:
            self.calls.append((decision, now))
            due = self.open.get(decision)
            if due is None:
                return table_pb2.ApplyTimeoutResponse(applied=False, version=len(self.applied))
            if now < due:
                self.early.append((decision, now))
            del self.open[decision]
            self.applied.append(Application(decision, now))
            return table_pb2.ApplyTimeoutResponse(applied=True, version=len(self.applied))

    def applications_of(self, decision: Decision) -> list[Application]:
        with self.lock:
            return [a for a in self.applied if a.decision == decision]


def start_recording_table(auth_key: str) -> tuple[RecordingTable, grpc.Server, int]:
    # The generated stubs mark every RPC abstract; at run time the base servicer answers
    # UNIMPLEMENTED for those not overridden, which is what this stand-in wants.
    table = RecordingTable()  # type: ignore[abstract]
    spec = ServiceSpec(
        name="table",
        register=lambda server: table_pb2_grpc.add_TableServiceServicer_to_server(table, server),
        service_names=[table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name],
    )
    settings = RuntimeSettings(service_name="table", address="127.0.0.1:0", auth_key=auth_key)
    server, port = create_server(spec, settings)
    return table, server, port
