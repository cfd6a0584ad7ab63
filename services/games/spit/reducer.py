"""`apply(state, event) -> state`: fold one event in. Never validates and never computes a
hidden input: every card comes from an event; what follows from the state (the middle piles a
deal starts, the cards each player gathers) is derived the same way on every replay.

A card that turns up is read from the event that turns it, never from the face-down card
under it, so folding a viewer's redacted events (face-down cards "??") keeps that viewer's
picture exact: a client's mirror of the table (mirror.py) is this same reducer."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from services.games.spit import events as ev
from services.games.spit.cards import Card
from services.games.spit.config import Variation
from services.games.spit.state import (
    Deal,
    Game,
    Middle,
    Phase,
    Place,
    Seat,
    Shuffle,
    Side,
    SpitState,
    evolve,
)


def apply(state: SpitState, event: ev.SpitEvent) -> SpitState:
    return _HANDLERS[type(event)](state, event)


def apply_all(state: SpitState, events: Iterable[ev.SpitEvent]) -> SpitState:
    for event in events:
        state = _HANDLERS[type(event)](state, event)
    return state


# --- helpers ---------------------------------------------------------------------------------


def _game(state: SpitState) -> Game:
    assert state.game is not None, "a deal event outside a game"
    return state.game


def _with_deal(state: SpitState, deal: Deal) -> SpitState:
    return evolve(state, game=evolve(_game(state), deal=deal))


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _with_side(deal: Deal, seat: int, side: Side) -> Deal:
    return evolve(deal, sides=_two(deal.sides, seat, side))


def _two(sides: tuple[Side, Side], seat: int, side: Side) -> tuple[Side, Side]:
    return (side, sides[1]) if seat == 0 else (sides[0], side)


def _with_place(side: Side, index: int, place: Place) -> Side:
    return evolve(side, places=_set(side.places, index, place))


def _onto(middle: tuple[Middle, ...], index: int, card: Card) -> tuple[Middle, ...]:
    pile = middle[index]
    return _set(middle, index, Middle((*pile.cards, card), pile.starter))


def _with_stack(
    stacks: tuple[tuple[Card, ...], ...], index: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    padded = stacks + ((),) * (2 - len(stacks))
    return tuple(cards if i == index else padded[i] for i in range(2))


def _with_seat(state: SpitState, seat: int, value: Seat | None) -> SpitState:
    seats = (value, state.seats[1]) if seat == 0 else (state.seats[0], value)
    return evolve(state, seats=seats)


def _seat(state: SpitState, seat: int) -> Seat:
    value = state.seats[seat]
    assert value is not None, f"seat {seat} is empty"
    return value


def _with_stacks(state: SpitState, stacks: tuple[int, int]) -> SpitState:
    seats = tuple(
        evolve(s, stack=stacks[i]) if s is not None else None for i, s in enumerate(state.seats)
    )
    return evolve(state, seats=(seats[0], seats[1]))


def leftovers(side: Side) -> tuple[Card, ...]:
    """Every card a player still has in front of them: places (face down and up) and spit."""
    cards: list[Card] = []
    for place in side.places:
        cards.extend(place.down)
        if place.up is not None:
            cards.append(place.up)
    cards.extend(side.spit)
    return tuple(cards)


def _laid_out(state: SpitState, deal: Deal) -> Deal:
    """The deal once every recipient has its cards: the middle piles it will start."""
    variation = state.config.variation
    if not all(side.dealt for side in deal.sides):
        return deal
    if variation is Variation.SPEED:
        if len(deal.stacks) < 2 or "stack 0" not in deal.dealt or "stack 1" not in deal.dealt:
            return deal
        middle: tuple[Middle, ...] = (Middle(), Middle())
    elif variation is Variation.BICYCLE:
        middle = (Middle(starter=0), Middle(starter=1))
    else:
        middle = tuple(Middle(starter=s) for s in (0, 1) if deal.sides[s].spit)
    return evolve(deal, phase=Phase.READY, middle=middle, one_pile=len(middle) == 1)


# --- handlers --------------------------------------------------------------------------------


def _seated(state: SpitState, e: ev.PlayerSeated) -> SpitState:
    return _with_seat(state, e.seat, Seat(e.player, e.stack))


def _left(state: SpitState, e: ev.PlayerLeft) -> SpitState:
    return _with_seat(state, e.seat, None)


def _sat_out(state: SpitState, e: ev.PlayerSatOut) -> SpitState:
    return _with_seat(state, e.seat, evolve(_seat(state, e.seat), sitting_out=True))


def _sat_in(state: SpitState, e: ev.PlayerSatIn) -> SpitState:
    return _with_seat(state, e.seat, evolve(_seat(state, e.seat), sitting_out=False))


def _chips_added(state: SpitState, e: ev.ChipsAdded) -> SpitState:
    seat = _seat(state, e.seat)
    return _with_seat(state, e.seat, evolve(seat, stack=seat.stack + e.amount))


def _game_started(state: SpitState, e: ev.GameStarted) -> SpitState:
    game = Game(number=e.game, stake=e.stake, deal=Deal(number=e.deal, phase=Phase.DEALING))
    return _with_stacks(evolve(state, game=game, games=e.game, deals=e.deal), e.stacks)


def _shuffle_committed(state: SpitState, e: ev.ShuffleCommitted) -> SpitState:
    game = _game(state)
    deal = evolve(game.deal, shuffles=(*game.deal.shuffles, e.name))
    record = Shuffle(e.round, e.name, e.shuffle_id, e.commitment)
    return evolve(state, game=evolve(game, deal=deal, shuffles=(*game.shuffles, record)))


def _placed(cards: tuple[Card, ...]) -> Place:
    return Place(down=cards[:-1], up=cards[-1]) if cards else Place()


def _laid(state: SpitState, e: ev.LaidOut) -> SpitState:
    deal = _game(state).deal
    side = Side(places=tuple(_placed(p) for p in e.places), spit=e.spit, dealt=True)
    deal = evolve(_with_side(deal, e.seat, side), dealt=(*deal.dealt, f"seat {e.seat}"))
    return _with_deal(state, _laid_out(state, deal))


def _side_stack(state: SpitState, e: ev.SideStackDealt) -> SpitState:
    deal = _game(state).deal
    stacks = _with_stack(deal.stacks, e.stack, e.cards)
    if deal.phase is Phase.DEALING:
        deal = evolve(deal, stacks=stacks, dealt=(*deal.dealt, f"stack {e.stack}"))
        return _with_deal(state, _laid_out(state, deal))
    gathered = tuple(() if i == e.stack else g for i, g in enumerate(deal.gathered))
    if not any(gathered):
        gathered = ()  # every side stack is rebuilt: play on
    return _with_deal(state, evolve(deal, stacks=stacks, gathered=gathered))


def _ready(state: SpitState, e: ev.PlayerReady) -> SpitState:
    deal = _game(state).deal
    deal = _with_side(deal, e.seat, evolve(deal.sides[e.seat], ready=True))
    if all(side.ready for side in deal.sides):
        deal = evolve(deal, phase=Phase.PLAYING)
    return _with_deal(state, deal)


def _spat(state: SpitState, e: ev.Spat) -> SpitState:
    deal = _game(state).deal
    middle = _onto(deal.middle, e.pile, e.card)
    if e.seat is None:
        stacks = _with_stack(deal.stacks, e.pile, deal.stacks[e.pile][1:])
        deal = evolve(deal, stacks=stacks, middle=middle, moves=deal.moves + 1)
    else:
        side = deal.sides[e.seat]
        sides = _two(deal.sides, e.seat, evolve(side, spit=side.spit[1:]))
        deal = evolve(deal, sides=sides, middle=middle, moves=deal.moves + 1)
    return _with_deal(state, deal)


def _played(state: SpitState, e: ev.CardPlayed) -> SpitState:
    deal = _game(state).deal
    side = deal.sides[e.seat]
    side = _with_place(side, e.source, Place(side.places[e.source].down))
    sides = _two(deal.sides, e.seat, side)
    middle = _onto(deal.middle, e.target, e.card)
    return _with_deal(state, evolve(deal, sides=sides, middle=middle, moves=deal.moves + 1))


def _moved(state: SpitState, e: ev.CardMoved) -> SpitState:
    deal = _game(state).deal
    side = deal.sides[e.seat]
    places = _set(side.places, e.source, Place(side.places[e.source].down))
    side = evolve(side, places=_set(places, e.target, Place(up=e.card)))
    return _with_deal(
        state, evolve(deal, sides=_two(deal.sides, e.seat, side), moves=deal.moves + 1)
    )


def _turned_up(state: SpitState, e: ev.CardTurnedUp) -> SpitState:
    deal = _game(state).deal
    side = deal.sides[e.seat]
    place = side.places[e.pile]
    side = _with_place(side, e.pile, Place(down=place.down[:-1], up=e.card))
    return _with_deal(state, _with_side(deal, e.seat, side))


def _filled(state: SpitState, e: ev.SlotFilled) -> SpitState:
    deal = _game(state).deal
    side = deal.sides[e.seat]
    side = evolve(_with_place(side, e.slot, Place(up=e.card)), spit=side.spit[1:])
    return _with_deal(state, _with_side(deal, e.seat, side))


def _stalled(state: SpitState, e: ev.Stalled) -> SpitState:
    return state


def _gathered(state: SpitState, e: ev.MiddleGathered) -> SpitState:
    deal = _game(state).deal
    middle = tuple(evolve(pile, cards=pile.cards[-1:]) for pile in deal.middle)
    deal = evolve(deal, middle=middle, gathered=e.cards, restocks=e.restock)
    return _with_deal(state, deal)


def _deal_over(state: SpitState, e: ev.DealOver) -> SpitState:
    return _with_deal(state, evolve(_game(state).deal, phase=Phase.SLAPPING))


def _slapped(state: SpitState, e: ev.Slapped) -> SpitState:
    deal = _game(state).deal
    side = evolve(deal.sides[e.seat], slapped=e.pile, takes=e.takes)
    return _with_deal(state, _with_side(deal, e.seat, side))


def _deal_ended(state: SpitState, e: ev.DealEnded) -> SpitState:
    deal = _game(state).deal
    decks = []
    for seat, side in enumerate(deal.sides):
        taken = e.takes[seat]
        pile = deal.middle[taken].cards if taken is not None else ()
        decks.append(tuple(sorted((*pile, *leftovers(side)))))
    following = Deal(number=e.deal + 1, phase=Phase.DEALING, decks=tuple(decks))
    return evolve(_with_deal(state, following), deals=e.deal + 1)


def _game_ended(state: SpitState, e: ev.GameEnded) -> SpitState:
    game = _game(state)
    deal = evolve(game.deal, phase=Phase.OVER)
    game = evolve(game, deal=deal, winner=e.winner, result=e.reason)
    return _with_stacks(evolve(state, game=game), e.stacks)


def _revealed(state: SpitState, e: ev.ShuffleRevealed) -> SpitState:
    game = _game(state)
    shuffles = tuple(
        evolve(s, reveal=e.reveal) if (s.round, s.name) == (e.round, e.name) else s
        for s in game.shuffles
    )
    return evolve(state, game=evolve(game, shuffles=shuffles))


_HANDLERS: dict[type[Any], Callable[[SpitState, Any], SpitState]] = {
    ev.PlayerSeated: _seated,
    ev.PlayerLeft: _left,
    ev.PlayerSatOut: _sat_out,
    ev.PlayerSatIn: _sat_in,
    ev.ChipsAdded: _chips_added,
    ev.GameStarted: _game_started,
    ev.ShuffleCommitted: _shuffle_committed,
    ev.LaidOut: _laid,
    ev.SideStackDealt: _side_stack,
    ev.PlayerReady: _ready,
    ev.Spat: _spat,
    ev.CardPlayed: _played,
    ev.CardMoved: _moved,
    ev.CardTurnedUp: _turned_up,
    ev.SlotFilled: _filled,
    ev.Stalled: _stalled,
    ev.MiddleGathered: _gathered,
    ev.DealOver: _deal_over,
    ev.Slapped: _slapped,
    ev.DealEnded: _deal_ended,
    ev.GameEnded: _game_ended,
    ev.ShuffleRevealed: _revealed,
}
