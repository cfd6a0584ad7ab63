"""The table as a refused player needs to see it: every error names the current top cards."""

from __future__ import annotations

from services.games.spit.state import Deal, Phase, Place


def _place(place: Place) -> str:
    if place.up is None:
        return "??" if place.down else "-"
    return place.up


def tops(deal: Deal, seat: int) -> str:
    """ "middle piles: 0 9c, 1 Kd; your piles: 7h 2c - Qs 5d"."""
    middle = ", ".join(f"{i} {pile.top or '-'}" for i, pile in enumerate(deal.middle)) or "none"
    yours = " ".join(_place(p) for p in deal.sides[seat].places)
    return f"middle piles: {middle}; your places: {yours}"


def phase_text(deal: Deal) -> str:
    if deal.phase is Phase.DEALING:
        return f"deal {deal.number} is being dealt"
    if deal.phase is Phase.READY:
        return f"deal {deal.number} starts when both players are ready"
    if deal.phase is Phase.SLAPPING:
        sizes = ", ".join(f"{i}: {len(p.cards)} cards" for i, p in enumerate(deal.middle))
        return f"deal {deal.number} is over: slap a middle pile ({sizes})"
    if deal.phase is Phase.OVER:
        return "the game is over"
    return f"deal {deal.number} is being played"
