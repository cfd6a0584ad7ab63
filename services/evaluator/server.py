"""Composition root: the evaluator's servicer on the shared gRPC runtime."""

from __future__ import annotations

import grpc

from croupier.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc
from services.evaluator.servicer import EvaluatorServicer
from services.evaluator.settings import EvaluatorSettings
from services.shared.grpc_server import ServiceSpec

SERVICE_NAME = evaluator_pb2.DESCRIPTOR.services_by_name["EvaluatorService"].full_name


def build(settings: EvaluatorSettings) -> ServiceSpec:
    # Importing the servicer built the lookup tables, so the first RPC is as fast as any.
    servicer = EvaluatorServicer(settings.equity_cpu_ms)

    def register(server: grpc.Server) -> None:
        evaluator_pb2_grpc.add_EvaluatorServiceServicer_to_server(servicer, server)

    return ServiceSpec(name="evaluator", register=register, service_names=[SERVICE_NAME])
