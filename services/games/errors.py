"""Rule violations raised by `decide`: the engine's own error hierarchy (standard library only).

Each carries a `kind` that the table service maps to a gRPC status code, and a message written
for the person who acted: whose turn it is, the legal range, the offending card or limit.
Nothing changes when one is raised (decide is pure; the state is never mutated).
"""

from __future__ import annotations

from typing import ClassVar


class RuleViolation(Exception):
    """Base class; `kind` is one of invalid_argument, failed_precondition, not_found,
    permission_denied."""

    kind: ClassVar[str] = "failed_precondition"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidAction(RuleViolation):
    """Malformed or out-of-range input: an amount outside the legal range, a card not held."""

    kind = "invalid_argument"


class NotAllowedNow(RuleViolation):
    """Well formed, but the current state does not allow it: not this seat's turn, no hand."""

    kind = "failed_precondition"


class UnknownTarget(RuleViolation):
    """The named seat or hand does not exist."""

    kind = "not_found"


class NotYourSeat(RuleViolation):
    """A player tried to act for a seat that belongs to someone else."""

    kind = "permission_denied"
