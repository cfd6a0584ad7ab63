"""Starting a hand: who is dealt in, where the button goes, who posts what.

The button moves one seat clockwise to the next player dealt in (a simplified moving button).
Heads-up, the button posts the small blind. A player returning from sitting out either posts
a big blind at once or waits until the big blind reaches their seat; when the small-blind
position falls on a waiting player, that hand has no small blind (Robert's Rules' dead small
blind). Antes come first, then blinds; a short stack posts what it has and is all in.
"""

from __future__ import annotations

from services.games.poker.chance import eligible_seats
from services.games.poker.definitions import ForcedBets
from services.games.poker.events import Event, ForcedBetPosted, HandStarted
from services.games.poker.state import TableState


def _clockwise_after(seats: list[int], seat: int) -> list[int]:
    """`seats` (ascending) clockwise starting left of `seat`: the ones above it, then the
    rest (the same order as sorting by clockwise distance, without a key function)."""
    return [s for s in seats if s > seat] + [s for s in seats if s <= seat]


def start_hand(state: TableState) -> list[Event]:
    config = state.config
    size = config.seats
    eligible = eligible_seats(state)
    waiting = [s for s in eligible if state.seats[s].waiting_for_big_blind]  # type: ignore[union-attr]
    active = [s for s in eligible if s not in waiting]
    if len(active) < 2:
        active, waiting = eligible, []
    if state.last_button is None:
        start = (config.first_button_seat - 1) % size
    else:
        start = state.last_button
    button = _clockwise_after(active, start)[0]
    dealt = set(active)
    sb: int | None = None
    bb: int | None = None
    if config.game.forced_bets is ForcedBets.BLINDS:
        everyone = sorted(active + waiting)
        order = _clockwise_after(everyone, button)
        if len(everyone) == 2:
            sb, bb = button, order[0]
        else:
            sb, bb = order[0], order[1]
        if bb in waiting:
            dealt.add(bb)
        if sb in waiting:
            sb = None
        if bb not in dealt:  # unreachable: bb is active or was just dealt in
            bb = None
    seats = tuple(sorted(dealt))
    stacks = {s: state.stack(s) for s in seats}
    number = state.last_hand + 1
    events: list[Event] = [
        HandStarted(number, button, seats, tuple(stacks[s] for s in seats), sb, bb)
    ]
    if config.ante:
        anteing = [bb] if config.big_blind_ante and bb is not None else list(seats)
        for s in _clockwise_after(anteing, button):
            amount = min(config.ante, stacks[s])
            if amount:
                stacks[s] -= amount
                events.append(ForcedBetPosted(s, "ante", amount))
    if sb is not None:
        amount = min(config.small_blind, stacks[sb])
        if amount:
            stacks[sb] -= amount
            events.append(ForcedBetPosted(sb, "small-blind", amount))
    if bb is not None:
        amount = min(config.big_blind, stacks[bb])
        if amount:
            stacks[bb] -= amount
            events.append(ForcedBetPosted(bb, "big-blind", amount))
    for s in seats:
        seat = state.seats[s]
        if seat is not None and seat.posts_big_blind and s not in (sb, bb):
            amount = min(config.big_blind, stacks[s])
            if amount:
                stacks[s] -= amount
                events.append(ForcedBetPosted(s, "returning-blind", amount))
    return events
