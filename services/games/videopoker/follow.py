"""The automatic consequences of a command: what happens with no one to ask.

A hold of all five cards draws nothing on every line; the last line's draw settles the
round; a round whose chips moved and decks closed ends; a player who asked to leave during
the round leaves when it ends.
"""

from __future__ import annotations

from services.games.videopoker import events as ev
from services.games.videopoker.reducer import apply, apply_all
from services.games.videopoker.settle import settle
from services.games.videopoker.state import MachineState, Round


def finished(current: Round) -> bool:
    if not current.bet_taken or not all(deck.closed for deck in current.decks):
        return False
    if current.voided:
        return current.refunded
    return current.settled and (current.win == 0 or current.win_paid)


def _next(state: MachineState) -> ev.Event | None:
    current = state.round
    seat = state.seat
    if current is None:
        if seat is not None and seat.leaving:
            return ev.PlayerLeft(0, seat.player, seat.stack)
        return None
    if current.hold is not None and len(current.draws) < current.lines:
        if current.drawn_count == 0:
            return ev.LineDrawn(current.number, len(current.draws) + 1, ())
        return None
    if current.hold is not None and not current.settled:
        results = settle(current, state.config.denomination)
        return ev.LinesSettled(current.number, results, sum(result.win for result in results))
    if finished(current):
        assert seat is not None, "a round in play has its seat"
        return ev.RoundEnded(current.number, seat.stack)
    return None


def follow(state: MachineState, events: list[ev.Event]) -> list[ev.Event]:
    state = apply_all(state, events)
    consequences: list[ev.Event] = []
    while (event := _next(state)) is not None:
        consequences.append(event)
        state = apply(state, event)
    return consequences
