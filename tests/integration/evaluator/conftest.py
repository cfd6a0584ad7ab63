"""A real evaluator (gRPC server on port 0) and callers with real tokens."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from croupier.evaluator.v1 import evaluator_pb2_grpc
from services.evaluator.server import build
from services.evaluator.settings import EvaluatorSettings
from services.shared import auth
from services.shared.channels import connect
from services.shared.grpc_server import create_server

AUTH_KEY = "evaluator-test-signing-key-0123456789abcdef"


@pytest.fixture(scope="module")
def evaluator_address() -> Iterator[str]:
    settings = EvaluatorSettings.from_env(
        {"CROUPIER_AUTH_KEY": AUTH_KEY, "CROUPIER_EVALUATOR_METRICS_PORT": "0"}
    )
    server, port = create_server(build(settings), settings.runtime)
    yield f"127.0.0.1:{port}"
    server.stop(0).wait()


def stub_for(
    address: str, role: auth.Role, subject: str = "alice"
) -> evaluator_pb2_grpc.EvaluatorServiceStub:
    token = auth.issue_token(AUTH_KEY, subject, role, 600)
    return evaluator_pb2_grpc.EvaluatorServiceStub(connect(address, token))


@pytest.fixture(scope="module")
def evaluator(evaluator_address: str) -> evaluator_pb2_grpc.EvaluatorServiceStub:
    return stub_for(evaluator_address, auth.Role.PLAYER)


@pytest.fixture
def anonymous(evaluator_address: str) -> evaluator_pb2_grpc.EvaluatorServiceStub:
    return evaluator_pb2_grpc.EvaluatorServiceStub(grpc.insecure_channel(evaluator_address))
