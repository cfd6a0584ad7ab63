"""Pots and their division: side pots by all-in level, ties, odd chips, high-low, rake.

Pots are layered by contribution: every distinct amount committed by a contender who is all
in caps a pot; folded players' chips stay in the pots they reached (dead money). A pot is
shared equally among the best hands; odd chips go one each to the winners nearest the
button clockwise (Robert's Rules). In high-low, the high half takes the odd chip of the
split, and each half splits again on ties (quartering).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.events import Share
from services.games.state import HandState


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # contenders (seat order) who can win it


def build_pots(hand: HandState) -> list[Pot]:
    contenders = [p for p in hand.players if not p.folded]
    levels = sorted({p.committed for p in contenders if p.committed > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(p.committed, level) - min(p.committed, previous) for p in hand.players)
        eligible = tuple(p.seat for p in contenders if p.committed >= level)
        if amount > 0:
            pots.append(Pot(amount, eligible))
        previous = level
    # Dead chips above every contender's level (a folded player's uncalled excess is
    # returned before this, so this only happens with odd forced bets) join the last pot.
    dead = sum(max(0, p.committed - previous) for p in hand.players)
    if dead:
        if pots:
            last = pots[-1]
            pots[-1] = Pot(last.amount + dead, last.eligible)
        else:
            pots.append(Pot(dead, tuple(p.seat for p in contenders)))
    return pots


def clockwise_order(seats: list[int], button: int, table_size: int) -> list[int]:
    """Seats ordered by distance clockwise from the button (the seat left of it first)."""
    return sorted(seats, key=lambda s: (s - button - 1) % table_size)


def split(amount: int, winners: list[int], button: int, table_size: int, half: str) -> list[Share]:
    ordered = clockwise_order(winners, button, table_size)
    base, odd = divmod(amount, len(ordered))
    return [Share(seat, base + (1 if i < odd else 0), half) for i, seat in enumerate(ordered)]


def rake_for(total: int, basis_points: int, cap: int) -> int:
    rake = total * basis_points // 10_000
    return min(rake, cap) if cap > 0 else rake
