"""The single place that hides information, and what each seat may do now.

A face-down card is seen by its own seat only; once turned, by everyone. A spectator (viewer
None) sees face-up cards only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.games import contract as c
from services.games.cardtext import Card
from services.games.highcard import events as ev
from services.games.highcard.decide import turn_deadline
from services.games.highcard.moves import LegalMoves
from services.games.highcard.state import SEATS, HighCardState

HIDDEN = "??"  # a card this viewer may not see


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    player: str
    stack: int
    sitting_out: bool
    card: Card | None = None  # HIDDEN when it is face down and not the viewer's
    turned: bool = False


@dataclass(frozen=True, slots=True)
class HighCardView:
    viewer: c.Viewer
    seats: tuple[SeatView, ...]
    round: int | None = None
    pot: int = 0
    to_act: tuple[int, ...] = ()
    legal: LegalMoves | None = None  # the viewer's own (None: a spectator)


def to_act(state: HighCardState) -> frozenset[int]:
    """Both seats whose card is dealt and still face down: they turn at the same time."""
    current = state.round
    if current is None or not current.dealt:
        return frozenset()
    return frozenset(seat for seat in SEATS if not current.turned[seat])


def legal_moves(state: HighCardState, seat: int) -> LegalMoves:
    return LegalMoves(seat, turn=seat in to_act(state))


def deadlines(state: HighCardState) -> Sequence[c.Deadline]:
    """Each seat to act turns within the table's action time; its time bank does not apply
    (nothing is decided, only revealed)."""
    current = state.round
    if current is None:
        return []
    return [c.Deadline(seat, turn_deadline(current.number)) for seat in sorted(to_act(state))]


def view_for(state: HighCardState, viewer: c.Viewer) -> HighCardView:
    current = state.round
    seats = []
    for seat, s in enumerate(state.seats):
        if s is None:
            continue
        card: Card | None = None
        turned = False
        if current is not None and current.dealt:
            turned = current.turned[seat]
            card = current.cards[seat] if turned or viewer == seat else HIDDEN
        seats.append(SeatView(seat, s.player, s.stack, s.sitting_out, card, turned))
    movers = tuple(sorted(to_act(state)))
    legal = legal_moves(state, viewer) if viewer in SEATS and state.seats[viewer] else None
    return HighCardView(
        viewer,
        tuple(seats),
        current.number if current else None,
        current.pot if current else 0,
        movers,
        legal,
    )


def redact(event: ev.Event, viewer: c.Viewer) -> ev.Event:
    if isinstance(event, ev.CardsDealt):
        cards = tuple(card if viewer == seat else HIDDEN for seat, card in enumerate(event.cards))
        return ev.CardsDealt(event.round, cards)
    return event


def seats(state: HighCardState) -> Sequence[c.SeatSummary]:
    in_round = state.round is not None
    return [
        c.SeatSummary(seat, s.player, s.stack, s.sitting_out, in_round)
        for seat, s in enumerate(state.seats)
        if s is not None
    ]
