"""Structured logging (structlog) for every croupier process.

`configure_logging(level, json)` once at start-up; then ``log = structlog.get_logger(__name__)``
and ``log.info("table opened", table_id=...)``. Standard-library loggers (grpc, celery, redis)
are routed through the same renderer. Values under keys that look like secrets (tokens, keys,
passwords, authorization headers) are replaced by "[redacted]" before anything is written.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

_SECRET_WORDS = ("token", "secret", "password", "authorization", "auth_key", "private_key")


def _is_secret_key(key: str) -> bool:
    lowered = key.lower()
    return any(word in lowered for word in _SECRET_WORDS)


def redact_secrets(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: never write a secret-looking field's value."""
    for key in list(event_dict):
        if _is_secret_key(key):
            event_dict[key] = "[redacted]"
    return event_dict


def configure_logging(level: str = "info", json: bool = False) -> None:
    """Configure structlog and stdlib logging to write one line per event to stderr."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        redact_secrets,
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(
            colors=sys.stderr.isatty(),
            # Rich tracebacks show every frame's local variables by default; a local can hold
            # a token, a key or an unrevealed seed, so tracebacks are printed without them.
            exception_formatter=structlog.dev.RichTracebackFormatter(show_locals=False),
        )
    )
    structlog.configure(
        processors=[
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info if json else _identity,
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)


def _identity(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    return event_dict
