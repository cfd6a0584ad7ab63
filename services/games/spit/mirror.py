"""A client's mirror of a Spit table: the state one viewer can know, kept up to date by
folding the events the table sends that viewer (already redacted) with the game's own
reducer, so a bot or a screen always has the table's picture without reading a view per event.

    mirror = from_view(view, config)            # the first message of a watch
    mirror = apply(mirror, redacted_event)      # every later event
    view_for(mirror, seat)                      # equals the table's own view for that seat

Cards the viewer may not see are `HIDDEN` ("??") in the mirror, exactly as in the events; the
reducer reads every card that turns up from the event that turns it, so nothing hidden is ever
needed. What a view does not show (the names of the deal's shuffles, how many cards moved) the
mirror does not need: it only feeds the reducer's own bookkeeping for the dealer and the stall
timer, which the table keeps. Pure: standard library only.
"""

from __future__ import annotations

from services.games.spit.cards import HIDDEN
from services.games.spit.config import SpitConfig
from services.games.spit.reducer import apply, apply_all
from services.games.spit.state import (
    Deal,
    Game,
    Middle,
    Phase,
    Place,
    Seat,
    Side,
    SpitState,
    evolve,
)
from services.games.spit.views import PlaceView, SeatView, SpitView

__all__ = ["apply", "apply_all", "from_view"]


def _hidden(count: int) -> tuple[str, ...]:
    return (HIDDEN,) * count


def _place(view: PlaceView) -> Place:
    return Place(down=_hidden(view.down), up=view.up)


def _side(seat: SeatView | None) -> Side:
    if seat is None or not seat.places:
        return Side()
    return Side(
        places=tuple(_place(p) for p in seat.places),
        spit=_hidden(seat.spit),
        dealt=True,
        ready=seat.ready,
        slapped=seat.slapped,
        takes=seat.takes,
    )


def _dealt(view: SpitView, sides: tuple[Side, Side]) -> tuple[str, ...]:
    """The recipients dealt so far, as the reducer names them (it reads them while dealing)."""
    dealt = [f"seat {i}" for i, side in enumerate(sides) if side.dealt]
    dealt += [f"stack {i}" for i, size in enumerate(view.side_stacks) if size]
    return tuple(dealt)


def from_view(view: SpitView, config: SpitConfig) -> SpitState:
    """The state `view.viewer` can know, from the table's view for them."""
    seats = tuple(
        Seat(s.player, s.stack, s.sitting_out) if s is not None else None for s in view.seats
    )
    state = SpitState(
        config.checked(),
        seats=(seats[0], seats[1]),
        games=view.game or 0,
        deals=view.deal or 0,
    )
    if view.game is None or view.deal is None or view.phase is None:
        return state
    sides = (_side(view.seats[0]), _side(view.seats[1]))
    # Between deals each player's cards wait for their own shuffle: their number is public.
    waiting = any(
        s is not None and not side.dealt and s.cards
        for s, side in zip(view.seats, sides, strict=True)
    )
    decks = tuple(_hidden(s.cards if s is not None else 0) for s in view.seats) if waiting else ()
    deal = Deal(
        number=view.deal,
        phase=Phase(view.phase),
        sides=sides,
        middle=tuple(Middle(p.cards, p.starter) for p in view.middle),
        stacks=tuple(_hidden(n) for n in view.side_stacks),
        decks=decks,
        dealt=_dealt(view, sides),
        gathered=tuple(_hidden(n) for n in view.gathered),
        one_pile=view.one_pile,
    )
    game = Game(
        number=view.game, stake=view.stake, deal=deal, winner=view.winner, result=view.result
    )
    return evolve(state, game=game)
