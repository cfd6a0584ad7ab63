"""What a player sends (the `move` of the contract's `Move`) and the guard a racing client
attaches to it (its `precondition`).

Piles are 0-based. A player's own places (`source`, a space's `target`) are their stock piles
in Spit, their row in Bicycle's Spit and their hand in Speed; a middle pile (`target` of a
play, `pile` of a slap) is 0 or 1 (0 only in a one-pile deal).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.spit.cards import Card


@dataclass(frozen=True, slots=True)
class Ready:
    """The player's layout is in front of them: spit when both are ready."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play the face-up top card of `source` onto middle pile `target`. `card`, when given, is
    the card the player means (it must be that top card: a guard against a stale screen)."""

    source: int
    target: int
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class MoveToSpace:
    """Spit only: move the face-up top card of pile `source` into the empty space `target`
    (the card beneath it turns up)."""

    source: int
    target: int


@dataclass(frozen=True, slots=True)
class Slap:
    """End of a two-pile deal: claim middle pile `pile`."""

    pile: int


SpitMove = Ready | PlayCard | MoveToSpace | Slap


@dataclass(frozen=True, slots=True)
class Expected:
    """What the client saw when it sent the move: the deal it played in, and the top card of
    the middle pile it played on. A play whose `top` no longer matches lost a race: it is
    decided again against the new top card (accepted if it still fits there, refused with
    the new top card otherwise); a move for a deal that is over is refused."""

    deal: int | None = None
    top: Card | None = None
