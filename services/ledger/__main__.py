"""`python -m services.ledger`: serve the ledger until SIGTERM/SIGINT."""

from __future__ import annotations

from services.ledger.server import build
from services.ledger.settings import LedgerSettings
from services.shared.grpc_server import serve
from services.shared.settings import RuntimeSettings


def main() -> None:
    runtime = RuntimeSettings.from_env("ledger")
    serve(build(LedgerSettings.from_env()), runtime)


if __name__ == "__main__":
    main()
