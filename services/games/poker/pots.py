"""Pots and their division: side pots by all-in level, ties, odd chips, high-low, rake.

Pots are layered by live contribution: every distinct amount a contender who is all in put
in beyond the ante caps a pot; antes are dead money in the main pot (as in pokerkit and
cardroom practice: a player all in for the big blind still plays for every ante); folded
players' chips stay in the pots they reached. A pot is
shared equally among the best hands; the chips left over go one each to the winners nearest
the button clockwise (Robert's Rules), or all to the nearest one when the table says so
(`OddChips`, pokerkit's rule). In high-low, the high half takes the odd chip of the split,
and each half splits again on ties (quartering).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.poker.events import Share
from services.games.poker.state import HandState


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # contenders (seat order) who can win it


def build_pots(hand: HandState) -> list[Pot]:
    contenders = [p for p in hand.players if not p.folded]
    live = {p.seat: p.committed - p.antes for p in hand.players}
    antes = sum(p.antes for p in hand.players)
    levels = sorted({live[p.seat] for p in contenders if live[p.seat] > 0})
    pots: list[Pot] = []
    if antes and any(live[p.seat] == 0 for p in contenders):
        # Someone is all in for (part of) the ante alone: the antes are a pot of their own.
        pots.append(Pot(antes, tuple(p.seat for p in contenders)))
        antes = 0
    previous = 0
    for level in levels:
        amount = sum(min(live[p.seat], level) - min(live[p.seat], previous) for p in hand.players)
        eligible = tuple(p.seat for p in contenders if live[p.seat] >= level)
        if amount > 0:
            pots.append(Pot(amount + antes, eligible))
            antes = 0
        previous = level
    # Chips above every contender's level (a folded player's uncalled excess is returned
    # before this, so only odd forced bets get here) join the last pot; so do antes when
    # nobody put in a live chip.
    dead = sum(max(0, live[p.seat] - previous) for p in hand.players) + antes
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


def split(
    amount: int,
    winners: list[int],
    button: int,
    table_size: int,
    half: str,
    all_to_first: bool = False,
) -> list[Share]:
    """`amount` shared by `winners`; the odd chips one each from the button's left, or all to
    the first winner from there (`all_to_first`)."""
    ordered = clockwise_order(winners, button, table_size)
    base, odd = divmod(amount, len(ordered))
    if all_to_first:
        return [Share(seat, base + (odd if i == 0 else 0), half) for i, seat in enumerate(ordered)]
    return [Share(seat, base + (1 if i < odd else 0), half) for i, seat in enumerate(ordered)]


def rake_for(total: int, basis_points: int, cap: int) -> int:
    rake = total * basis_points // 10_000
    return min(rake, cap) if cap > 0 else rake
