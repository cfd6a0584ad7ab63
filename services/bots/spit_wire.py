"""Between croupier.spit.v1 and the Spit rules' own values, on the client's side: a table's
`SpitView` -> the rules' `SpitView` (what `services.games.spit.bot.choose` and the mirror
read), a streamed `SpitEvent` -> the rules' event (what the mirror folds), and a move -> the
`SpitMove` a client sends. The table's side of the same mapping is its translation module;
the event mapping is the one shared record codec (services/shared/records.py) both use."""

from __future__ import annotations

from google.protobuf.message import Message

from croupier.spit.v1 import events_pb2, spit_pb2
from services.games.spit import events as ev
from services.games.spit.config import SpitConfig, Variation
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap, SpitMove
from services.games.spit.state import Phase
from services.games.spit.views import MiddleView, PlaceView, SeatView, SpitView
from services.shared import records

VARIATIONS: dict[int, Variation] = {
    spit_pb2.VARIATION_SPIT: Variation.SPIT,
    spit_pb2.VARIATION_BICYCLE: Variation.BICYCLE,
    spit_pb2.VARIATION_SPEED: Variation.SPEED,
}
PHASES: dict[int, Phase] = {
    spit_pb2.PHASE_DEALING: Phase.DEALING,
    spit_pb2.PHASE_READY: Phase.READY,
    spit_pb2.PHASE_PLAYING: Phase.PLAYING,
    spit_pb2.PHASE_SLAPPING: Phase.SLAPPING,
    spit_pb2.PHASE_OVER: Phase.OVER,
}
_RECORDS: dict[str, type[ev.SpitEvent]] = {
    message.DESCRIPTOR.full_name: record
    for record, message in records.message_types(ev.EVENT_TYPES, events_pb2).items()
}


def _optional(message: Message, name: str) -> int | None:
    value: int | None = getattr(message, name) if message.HasField(name) else None
    return value


def move_from_proto(move: spit_pb2.SpitMove) -> SpitMove:
    kind = move.WhichOneof("move")
    if kind == "ready":
        return Ready()
    if kind == "play_card":
        return PlayCard(move.play_card.source, move.play_card.target, move.play_card.card or None)
    if kind == "move_to_space":
        return MoveToSpace(move.move_to_space.source, move.move_to_space.target)
    if kind == "slap":
        return Slap(move.slap.pile)
    raise ValueError("a SpitMove with no move")


def move_to_proto(move: SpitMove, expected: Expected | None = None) -> spit_pb2.SpitMove:
    message = spit_pb2.SpitMove()
    if isinstance(move, Ready):
        message.ready.SetInParent()
    elif isinstance(move, PlayCard):
        message.play_card.source, message.play_card.target = move.source, move.target
        message.play_card.card = move.card or ""
    elif isinstance(move, MoveToSpace):
        message.move_to_space.source, message.move_to_space.target = move.source, move.target
    else:
        message.slap.pile = move.pile
    if expected is not None:
        message.expected.SetInParent()
        if expected.deal is not None:
            message.expected.deal = expected.deal
        message.expected.top = expected.top or ""
    return message


def _seat(seat: spit_pb2.SpitSeat) -> SeatView:
    return SeatView(
        seat=seat.seat,
        player=seat.player,
        stack=seat.stack,
        sitting_out=seat.sitting_out,
        places=tuple(PlaceView(p.down, p.up or None) for p in seat.places),
        spit=seat.spit,
        ready=seat.ready,
        slapped=_optional(seat, "slapped"),
        takes=_optional(seat, "takes"),
        cards=seat.cards,
    )


def view_from_proto(view: spit_pb2.SpitView, viewer: int | None) -> SpitView:
    """The rules' view a table's `SpitView` for `viewer` (a seat, None: a spectator) spells."""
    seats: list[SeatView | None] = [None, None]
    for seat in view.seats:
        seats[seat.seat] = _seat(seat)
    phase = PHASES.get(view.phase)
    return SpitView(
        viewer=viewer,
        variation=VARIATIONS[view.variation].value,
        piles=view.piles,
        alternating_colours=view.alternating_colours,
        stake=view.stake,
        seats=(seats[0], seats[1]),
        game=_optional(view, "game"),
        deal=_optional(view, "deal"),
        phase=phase.value if phase is not None else None,
        one_pile=view.one_pile,
        middle=tuple(MiddleView(tuple(p.cards), _optional(p, "starter")) for p in view.middle),
        side_stacks=tuple(view.side_stacks),
        gathered=tuple(view.gathered),
        to_act=tuple(view.to_act),
        legal=tuple(move_from_proto(m) for m in view.legal),
        winner=_optional(view, "winner"),
        result=view.result,
    )


def config_of(view: spit_pb2.SpitView) -> SpitConfig:
    """The table's game, as far as a client's mirror needs it (the clocks are the table's)."""
    variation = VARIATIONS[view.variation]
    return SpitConfig(
        variation=variation,
        piles=view.piles if variation is Variation.SPIT else 5,
        alternating_colours=view.alternating_colours,
        stake=view.stake,
    )


def event_from_proto(wrapper: events_pb2.SpitEvent) -> ev.SpitEvent | None:
    """The rules event a streamed SpitEvent carries (None: an empty wrapper)."""
    member = wrapper.WhichOneof("event")
    if member is None:
        return None
    message: Message = getattr(wrapper, member)
    return records.from_message(message, _RECORDS[message.DESCRIPTOR.full_name])  # type: ignore[no-any-return]
