"""`python -m services.table`: serve the table orchestrator until SIGTERM/SIGINT."""

from __future__ import annotations

from services.shared.grpc_server import serve
from services.shared.settings import RuntimeSettings
from services.table.server import build
from services.table.settings import TableSettings


def main() -> None:
    runtime = RuntimeSettings.from_env("table")
    serve(build(TableSettings.from_env(), runtime), runtime)


if __name__ == "__main__":
    main()
