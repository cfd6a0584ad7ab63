"""`python -m services.evaluator`: serve the evaluator until SIGTERM/SIGINT."""

from services.evaluator.server import build
from services.evaluator.settings import EvaluatorSettings
from services.shared.grpc_server import serve


def main() -> None:
    settings = EvaluatorSettings.from_env()
    serve(build(settings), settings.runtime)


if __name__ == "__main__":
    main()
