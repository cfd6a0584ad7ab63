"""gRPC adapter: request -> application -> response. Any authenticated principal may call."""

# Method names are fixed by the proto (Evaluate, Showdown, ...).
# ruff: noqa: N802

from __future__ import annotations

import grpc

from croupier.evaluator.v1 import evaluator_pb2 as pb
from croupier.evaluator.v1 import evaluator_pb2_grpc
from services.evaluator import application, packed
from services.evaluator.settings import DEFAULT_EQUITY_CPU_MS


class EvaluatorServicer(evaluator_pb2_grpc.EvaluatorServiceServicer):
    def __init__(self, equity_cpu_ms: int = DEFAULT_EQUITY_CPU_MS) -> None:
        self._equity_cpu_ms = equity_cpu_ms

    def Evaluate(
        self, request: pb.EvaluateRequest, context: grpc.ServicerContext
    ) -> pb.EvaluateResponse:
        return application.evaluate(request)

    def Compare(
        self, request: pb.CompareRequest, context: grpc.ServicerContext
    ) -> pb.CompareResponse:
        return application.compare(request)

    def Showdown(
        self, request: pb.ShowdownRequest, context: grpc.ServicerContext
    ) -> pb.ShowdownResponse:
        return application.run_showdown(request)

    def Equity(self, request: pb.EquityRequest, context: grpc.ServicerContext) -> pb.EquityResponse:
        return application.run_equity(request, self._equity_cpu_ms)

    def EvaluateMany(
        self, request: pb.EvaluateManyRequest, context: grpc.ServicerContext
    ) -> pb.EvaluateManyResponse:
        return application.evaluate_many(request)

    def EvaluatePacked(
        self, request: pb.EvaluatePackedRequest, context: grpc.ServicerContext
    ) -> pb.EvaluatePackedResponse:
        return packed.evaluate_packed(request)
