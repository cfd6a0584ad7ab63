"""How every `croupier` command ends: its output (`--json` for scripts) and its exit code.

Exit codes scripts can trust:

====  ==========================================================================
0     done
1     the platform refused (no such table, not your turn, not enough chips, ...)
2     bad arguments: the command line, or a request the platform calls invalid
3     the platform cannot be reached or did not answer in time (is `make run` up?)
4     not allowed: no valid token, or the token may not do this
====  ==========================================================================

A refusal is one line on stderr, in the platform's own words; never a traceback.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import Any, NoReturn, ParamSpec, TypeVar

import grpc
import typer
from google.protobuf import json_format
from google.protobuf.message import Message

from services.client.identity import IdentityError
from services.sdk import ClientSettings, CroupierError

EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_DOWN = 3
EXIT_DENIED = 4
_EXITS = {
    grpc.StatusCode.INVALID_ARGUMENT: EXIT_USAGE,
    grpc.StatusCode.UNAVAILABLE: EXIT_DOWN,
    grpc.StatusCode.DEADLINE_EXCEEDED: EXIT_DOWN,
    grpc.StatusCode.UNAUTHENTICATED: EXIT_DENIED,
    grpc.StatusCode.PERMISSION_DENIED: EXIT_DENIED,
}
_SERVICES = {
    "TableService": "table",
    "LedgerService": "ledger",
    "DealerService": "dealer",
    "EvaluatorService": "evaluator",
}
P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str, code: int = EXIT_REFUSED) -> NoReturn:
    typer.secho(f"croupier: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


def describe(error: CroupierError) -> str:
    """One line about a refusal, in the platform's words."""
    service = error.method.split(".")[0]
    if error.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        name = _SERVICES.get(service, "")
        target = ClientSettings.from_env().target(name) if name else ""
        where = f" at {target}" if target else ""
        return (
            f"the {name or 'platform'} service{where} is not answering ({error.message}); "
            "is the platform running? start it with `make run`"
        )
    return f"{error.message} ({error.code.name})"


def reported(command: Callable[P, R]) -> Callable[P, R]:
    """Runs a command, turning every refusal into its one line and exit code."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except CroupierError as exc:
            fail(describe(exc), _EXITS.get(exc.code, EXIT_REFUSED))
        except IdentityError as exc:
            fail(str(exc), EXIT_USAGE)
        except KeyboardInterrupt:
            raise typer.Exit(0) from None

    return run


def to_json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=False
    )


def print_json(data: Message | dict[str, Any] | Iterable[Message]) -> None:
    if isinstance(data, Message):
        value: Any = to_json(data)
    elif isinstance(data, dict):
        value = data
    else:
        value = [to_json(item) for item in data]
    typer.echo(json.dumps(value, indent=2, sort_keys=True))
