"""`apply(state, event) -> state`: folds one event in. Never validates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from services.games.highcard import events as ev
from services.games.highcard.state import HighCardState, Round, Seat

Seats = tuple[Seat | None, Seat | None]


def _with_seat(state: HighCardState, seat: int, value: Seat | None) -> HighCardState:
    seats = (value, state.seats[1]) if seat == 0 else (state.seats[0], value)
    return replace(state, seats=seats)


def _seat(state: HighCardState, seat: int) -> Seat:
    occupant = state.seats[seat]
    assert occupant is not None
    return occupant


def _round(state: HighCardState) -> Round:
    assert state.round is not None
    return state.round


def apply(state: HighCardState, event: ev.Event) -> HighCardState:
    match event:
        case ev.PlayerSeated(seat=seat, player=player, stack=stack):
            return _with_seat(state, seat, Seat(player, stack))
        case ev.LeaveRequested(seat=seat):
            return _with_seat(state, seat, replace(_seat(state, seat), leaving=True))
        case ev.PlayerLeft(seat=seat):
            return _with_seat(state, seat, None)
        case ev.PlayerSatOut(seat=seat):
            return _with_seat(state, seat, replace(_seat(state, seat), sitting_out=True))
        case ev.PlayerSatIn(seat=seat):
            return _with_seat(state, seat, replace(_seat(state, seat), sitting_out=False))
        case ev.ChipsAdded(seat=seat, amount=amount):
            occupant = _seat(state, seat)
            return _with_seat(state, seat, replace(occupant, stack=occupant.stack + amount))
        case ev.RoundStarted(round=number, ante=ante):
            seats = _each(state.seats, lambda _, s: replace(s, stack=s.stack - ante))
            return replace(state, seats=seats, round=Round(number, ante * 2), rounds=number)
        case ev.DeckCommitted():
            return replace(state, decks=(*state.decks, event))
        case ev.CardsDealt(cards=cards):
            return replace(state, round=replace(_round(state), cards=cards))
        case ev.CardTurned(seat=seat):
            current = _round(state)
            turned = (True, current.turned[1]) if seat == 0 else (current.turned[0], True)
            return replace(state, round=replace(current, turned=turned))
        case ev.RoundWon(shares=shares):
            return _paid(state, dict(shares))
        case ev.RoundVoided():
            ante = _round(state).pot // 2
            return _paid(state, {0: ante, 1: ante})
        case ev.DeckRevealed(round=number):
            return replace(state, decks=tuple(d for d in state.decks if d.round != number))
    raise AssertionError(event)


def _each(seats: Seats, change: Callable[[int, Seat], Seat]) -> Seats:
    first, second = seats
    return (
        change(0, first) if first is not None else None,
        change(1, second) if second is not None else None,
    )


def _paid(state: HighCardState, chips: dict[int, int]) -> HighCardState:
    seats = _each(state.seats, lambda i, s: replace(s, stack=s.stack + chips.get(i, 0)))
    return replace(state, seats=seats, round=None)
