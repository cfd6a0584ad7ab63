"""Poker's own records inside the contract's commands (services/games/contract.py): what a
`Move` carries, the precondition a move may name, and the choice a `SitIn` may make."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.cardtext import Card


@dataclass(frozen=True, slots=True)
class PokerMove:
    """One decision of the seat the `Move` names: `action` from `events.Action`; `amount` the
    "raise to" total of the round for bet and raise; `cards` for discard (empty = stand pat)
    and open-discard (exactly one)."""

    action: str
    amount: int | None = None
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class InHand:
    """A move's precondition: it is meant for hand `hand` (a move made for a hand that is over
    is refused instead of acting in the next one)."""

    hand: int


@dataclass(frozen=True, slots=True)
class PostBigBlind:
    """`SitIn.option`: post a big blind in the next hand instead of waiting for the big blind
    to reach the seat (the default)."""
