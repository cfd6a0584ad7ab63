"""`python -m services.dealer`: serve the dealer until SIGTERM/SIGINT."""

from services.dealer.server import build
from services.dealer.settings import DealerSettings
from services.shared.grpc_server import serve


def main() -> None:
    settings = DealerSettings.from_env()
    serve(build(settings), settings.runtime)


if __name__ == "__main__":
    main()
