"""The single place that hides information: `view_for` (a state) and `redact` (an event).

A seat sees its own cards (hole and drawn), every face-up card, and other seats' cards only
once they are shown. A spectator (viewer None) sees public information only. Burned cards and
face-down discards are never shown to anyone but their owner; the evaluator's ranks of
unshown hands stay hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.cardtext import Card
from services.games.poker.events import (
    CardReported,
    CardsDealt,
    CardsDiscarded,
    DiscardsReshuffled,
    Event,
    HandsRanked,
)
from services.games.poker.legal import LegalActions, legal_actions
from services.games.poker.pots import build_pots
from services.games.poker.state import TableState
from services.games.ranking import SeatRank

HIDDEN = "??"  # stands for a card this viewer may not see

Viewer = int | None  # a seat number, or None for a spectator


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    player: str
    stack: int
    sitting_out: bool
    in_hand: bool = False
    folded: bool = False
    bet: int = 0  # this betting round
    committed: int = 0  # this hand
    all_in: bool = False
    cards: tuple[Card, ...] = ()  # HIDDEN for cards this viewer may not see
    open_discards: tuple[Card, ...] = ()
    shown: bool = False
    mucked: bool = False
    declared_board: bool = False
    rank: SeatRank | None = None  # own hand, or shown hands, once ranked


@dataclass(frozen=True, slots=True)
class View:
    viewer: Viewer
    game: str
    structure: str
    seats: tuple[SeatView, ...]
    hand: int | None = None
    button: int | None = None
    phase: str | None = None
    board: tuple[Card, ...] = ()
    pots: tuple[int, ...] = ()  # main pot first, chips already gathered and bet this hand
    current_bet: int = 0
    to_act: int | None = None
    legal: LegalActions | None = None  # the viewer's own legal actions (None: spectator)


def view_for(state: TableState, viewer: Viewer) -> View:
    hand = state.hand
    config = state.config
    in_hand = {p.seat: p for p in hand.players} if hand else {}
    seats = []
    for i, s in enumerate(state.seats):
        if s is None:
            continue
        p = in_hand.get(i)
        if p is None:
            seats.append(SeatView(i, s.player, s.stack, s.sitting_out))
            continue
        visible = viewer == i or p.shown
        rank = hand.rank_of(i) if hand is not None and visible else None
        seats.append(
            SeatView(
                i,
                s.player,
                s.stack,
                s.sitting_out,
                in_hand=True,
                folded=p.folded,
                bet=p.bet,
                committed=p.committed,
                all_in=s.stack == 0 and not p.folded,
                cards=p.cards if visible else (HIDDEN,) * len(p.cards),
                open_discards=p.open_discards,
                shown=p.shown,
                mucked=p.mucked,
                declared_board=p.declared_board,
                rank=rank,
            )
        )
    phase = state.phase()
    return View(
        viewer=viewer,
        game=config.game.name,
        structure=config.limit.value,
        seats=tuple(seats),
        hand=hand.number if hand else None,
        button=hand.button if hand else state.last_button,
        phase=phase.name if phase is not None else None,
        board=hand.board if hand else (),
        pots=tuple(p.amount for p in build_pots(hand)) if hand else (),
        current_bet=hand.current_bet if hand else 0,
        to_act=hand.to_act if hand else None,
        legal=legal_actions(state, viewer) if viewer is not None and viewer in in_hand else None,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as `viewer` may see it (hidden cards replaced by HIDDEN)."""
    if isinstance(event, CardsDealt):
        burned = (HIDDEN,) * len(event.burned)
        if event.face_up or event.seat is None or event.seat == viewer:
            if not event.burned:
                return event
            return CardsDealt(event.seat, event.cards, event.face_up, burned)
        return CardsDealt(event.seat, (HIDDEN,) * len(event.cards), event.face_up, burned)
    if isinstance(event, CardsDiscarded):
        if event.face_up or event.seat == viewer:
            return event
        return CardsDiscarded(event.seat, (HIDDEN,) * len(event.cards), event.face_up)
    if isinstance(event, DiscardsReshuffled):
        return DiscardsReshuffled((HIDDEN,) * len(event.cards))
    if isinstance(event, HandsRanked):
        return HandsRanked(tuple([(s, r) for s, r in event.ranks if s == viewer]), event.board)
    if isinstance(event, CardReported):
        # A live dealer's report shows what the table saw: a face-down card only to its seat
        # (a burn card to nobody).
        if event.face_up or event.to == "board" or (event.to == "seat" and event.seat == viewer):
            return event
        return CardReported(event.hand, HIDDEN, event.to, event.seat, event.face_up)
    return event
