"""The single place that hides information: `view_for` (a state) and `redact` (an event).

Everything face up is public: the middle piles, the top card of every stock pile, Bicycle's
rows. Face-down stock cards, spit cards, stocks, draw piles and side stacks are seen by
nobody, their owner included, until turned up; a Speed hand is seen by its owner only. Hidden
cards become `HIDDEN` ("??"); how many there are stays public. The dealer's reveals, published
once the game is over, are the audit record and pass as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from services.games.contract import Viewer
from services.games.spit import events as ev
from services.games.spit.acting import to_act
from services.games.spit.cards import HIDDEN, Card
from services.games.spit.config import Variation
from services.games.spit.moves import SpitMove
from services.games.spit.play import legal_moves
from services.games.spit.state import Phase, Place, SpitState


@dataclass(frozen=True, slots=True)
class PlaceView:
    down: int  # face-down cards
    up: Card | None  # the face-up top card (HIDDEN: an opponent's Speed hand card)


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    player: str
    stack: int
    sitting_out: bool
    places: tuple[PlaceView, ...] = ()
    spit: int = 0  # face-down spit cards (Bicycle's Spit: stock; Speed: draw pile)
    ready: bool = False
    slapped: int | None = None
    takes: int | None = None
    cards: int = 0  # every card the player holds (between deals: for the next deal)


@dataclass(frozen=True, slots=True)
class MiddleView:
    cards: tuple[Card, ...]  # all face up, bottom first
    starter: int | None  # the seat that spits onto it (None: a Speed side stack)


@dataclass(frozen=True, slots=True)
class SpitView:
    viewer: Viewer
    variation: str
    piles: int
    alternating_colours: bool
    stake: int
    seats: tuple[SeatView | None, SeatView | None]
    game: int | None = None
    deal: int | None = None
    phase: str | None = None
    one_pile: bool = False
    middle: tuple[MiddleView, ...] = ()
    side_stacks: tuple[int, ...] = ()  # Speed: cards left in each side stack
    # Speed: how many middle cards of each pile wait to be shuffled into a new side stack
    # (until the dealer has dealt them; nobody plays meanwhile).
    gathered: tuple[int, ...] = ()
    to_act: tuple[int, ...] = ()
    legal: tuple[SpitMove, ...] = ()  # the viewer's own moves now
    winner: int | None = None
    result: str = ""


def _sees_hand(state: SpitState, seat: int, viewer: Viewer) -> bool:
    return state.config.variation is not Variation.SPEED or viewer == seat


def _place_view(place: Place, visible: bool) -> PlaceView:
    up = place.up if place.up is None or visible else HIDDEN
    return PlaceView(len(place.down), up)


def view_for(state: SpitState, viewer: Viewer) -> SpitView:
    config = state.config
    game = state.game
    seats: list[SeatView | None] = []
    for i, seat in enumerate(state.seats):
        if seat is None:
            seats.append(None)
            continue
        base = SeatView(i, seat.player, seat.stack, seat.sitting_out)
        if game is None:
            seats.append(base)
            continue
        deal = game.deal
        side = deal.sides[i]
        if not side.dealt:
            held = len(deal.decks[i]) if deal.decks else 0
            seats.append(replace(base, cards=held))
            continue
        visible = _sees_hand(state, i, viewer)
        seats.append(
            replace(
                base,
                places=tuple(_place_view(p, visible) for p in side.places),
                spit=len(side.spit),
                ready=side.ready,
                slapped=side.slapped,
                takes=side.takes,
                cards=side.cards,
            )
        )
    view = SpitView(
        viewer=viewer,
        variation=config.variation.value,
        piles=config.slots,
        alternating_colours=config.alternating_colours,
        stake=config.stake,
        seats=(seats[0], seats[1]),
    )
    if game is None:
        return view
    deal = game.deal
    return replace(
        view,
        game=game.number,
        deal=deal.number,
        phase=deal.phase.value,
        one_pile=deal.one_pile,
        middle=tuple(MiddleView(p.cards, p.starter) for p in deal.middle),
        side_stacks=tuple(len(s) for s in deal.stacks),
        gathered=tuple(len(cards) for cards in deal.gathered),
        to_act=tuple(sorted(to_act(state))),
        legal=legal_moves(state, viewer) if viewer in (0, 1) else (),
        winner=game.winner if deal.phase is Phase.OVER else None,
        result=game.result,
    )


def redact(event: ev.SpitEvent, viewer: Viewer) -> ev.SpitEvent:
    """`event` as `viewer` may see it (events say themselves what is private)."""
    if isinstance(event, ev.LaidOut):
        shown = not event.private or viewer == event.seat
        places = tuple(
            (HIDDEN,) * (len(p) - 1) + (p[-1] if shown else HIDDEN,) if p else ()
            for p in event.places
        )
        return replace(event, places=places, spit=(HIDDEN,) * len(event.spit))
    if isinstance(event, ev.SideStackDealt):
        return replace(event, cards=(HIDDEN,) * len(event.cards))
    if isinstance(event, ev.SlotFilled) and event.private and viewer != event.seat:
        return replace(event, card=HIDDEN)
    return event
