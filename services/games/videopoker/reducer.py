"""`apply`: fold one event into the state. Never validates, never computes hidden inputs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from services.games.videopoker import events as ev
from services.games.videopoker.state import MachineState, OpenDeck, Round, Seat


def _round(state: MachineState) -> Round:
    assert state.round is not None, "a round event with no round in play"
    return state.round


def _with_round(state: MachineState, **changes: Any) -> MachineState:
    return replace(state, round=replace(_round(state), **changes))


def _seat(state: MachineState) -> Seat:
    assert state.seat is not None, "a seat event with no seat taken"
    return state.seat


def _seated(state: MachineState, event: ev.PlayerSeated) -> MachineState:
    return replace(state, seat=Seat(event.player, event.stack))


def _chips(state: MachineState, event: ev.ChipsAdded) -> MachineState:
    seat = _seat(state)
    return replace(state, seat=replace(seat, stack=seat.stack + event.amount))


def _leaving(state: MachineState, _event: ev.LeaveRequested) -> MachineState:
    return replace(state, seat=replace(_seat(state), leaving=True))


def _left(state: MachineState, _event: ev.PlayerLeft) -> MachineState:
    return replace(state, seat=None)


def _started(state: MachineState, event: ev.RoundStarted) -> MachineState:
    seat = _seat(state)
    started = Round(event.round, event.lines, event.coins, event.paytable, event.bet)
    return replace(
        state,
        seat=replace(seat, stack=seat.stack - event.bet),
        round=started,
        rounds=event.round,
    )


def _bet(state: MachineState, _event: ev.BetTaken) -> MachineState:
    return _with_round(state, bet_taken=True)


def _opened(state: MachineState, event: ev.DeckOpened) -> MachineState:
    deck = OpenDeck(event.name, event.shuffle_id, event.commitment, event.cards)
    return _with_round(state, decks=(*_round(state).decks, deck))


def _dealt(state: MachineState, event: ev.HandDealt) -> MachineState:
    return _with_round(state, dealt=event.cards)


def _split(state: MachineState, event: ev.SplitPlaced) -> MachineState:
    return _with_round(
        state,
        ticket=event.ticket,
        split_position=event.position,
        split_offset=event.offset,
        split_second=event.second,
    )


def _hold(state: MachineState, event: ev.HoldChosen) -> MachineState:
    return _with_round(state, hold=event.positions)


def _stub(state: MachineState, event: ev.StubSplitFound) -> MachineState:
    return _with_round(state, stub_base=event.base, split_second=event.second)


def _drawn(state: MachineState, event: ev.LineDrawn) -> MachineState:
    return _with_round(state, draws=(*_round(state).draws, event.cards))


def _settled(state: MachineState, event: ev.LinesSettled) -> MachineState:
    return _with_round(state, results=event.results, settled=True, win=event.win)


def _paid(state: MachineState, event: ev.WinPaid) -> MachineState:
    seat = _seat(state)
    state = replace(state, seat=replace(seat, stack=seat.stack + event.amount))
    return _with_round(state, win_paid=True)


def _voided(state: MachineState, event: ev.RoundVoided) -> MachineState:
    return _with_round(state, voided=event.reason)


def _refunded(state: MachineState, event: ev.StakeRefunded) -> MachineState:
    seat = _seat(state)
    state = replace(state, seat=replace(seat, stack=seat.stack + event.amount))
    return _with_round(state, refunded=True)


def _closed(state: MachineState, event: ev.DeckClosed) -> MachineState:
    current = _round(state)
    decks = tuple(
        replace(deck, reveal=event.reveal) if deck.name == event.name else deck
        for deck in current.decks
    )
    return _with_round(state, decks=decks)


def _ended(state: MachineState, _event: ev.RoundEnded) -> MachineState:
    return replace(state, round=None, last=state.round)


HANDLERS: dict[type, Callable[[MachineState, Any], MachineState]] = {
    ev.PlayerSeated: _seated,
    ev.ChipsAdded: _chips,
    ev.LeaveRequested: _leaving,
    ev.PlayerLeft: _left,
    ev.RoundStarted: _started,
    ev.BetTaken: _bet,
    ev.DeckOpened: _opened,
    ev.HandDealt: _dealt,
    ev.SplitPlaced: _split,
    ev.HoldChosen: _hold,
    ev.StubSplitFound: _stub,
    ev.LineDrawn: _drawn,
    ev.LinesSettled: _settled,
    ev.WinPaid: _paid,
    ev.RoundVoided: _voided,
    ev.StakeRefunded: _refunded,
    ev.DeckClosed: _closed,
    ev.RoundEnded: _ended,
}


def apply(state: MachineState, event: ev.Event) -> MachineState:
    return HANDLERS[type(event)](state, event)


def apply_all(state: MachineState, events: Iterable[ev.Event]) -> MachineState:
    for event in events:
        state = apply(state, event)
    return state
