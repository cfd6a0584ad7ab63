"""High card's own records inside the contract's commands: the one move, its precondition,
and what a seat may do now."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Turn:
    """Turn your card face up."""


@dataclass(frozen=True, slots=True)
class InRound:
    """A move's precondition: it is meant for round `round` (a move for a round that is over
    is refused, never applied to the next one)."""

    round: int


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """What `seat` may do now: turn its card, or nothing."""

    seat: int
    turn: bool = False
