"""`python -m tests.integration.runtime.probe_main`: the probe service behind `serve()`."""

from __future__ import annotations

from services.shared.grpc_server import serve
from services.shared.settings import RuntimeSettings
from tests.integration.runtime.conftest import SPEC

if __name__ == "__main__":
    serve(SPEC, RuntimeSettings.from_env("probe", 0))
