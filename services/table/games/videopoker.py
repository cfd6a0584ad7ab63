"""Video poker's translation: croupier.videopoker.v1 <-> the video poker rules' values.

No I/O and no rules: the rules check every value they are given (lines, coins, pay table,
positions), so a request is only read here, and refused here only when it cannot be read at
all (no move set, a pay table option that names no pay table).

Events are stored under their message's full name (croupier.videopoker.v1.RoundStarted ...);
the rules' events (services/games/videopoker/events.py) map one-to-one by name and field
name, so the mapping is structural and a test round-trips every event type.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.videopoker.v1 import events_pb2, videopoker_pb2
from services.games.videopoker import events as ev
from services.games.videopoker.moves import Deal, Hold, LegalMoves, MachineConfig
from services.games.videopoker.paytables import PAYTABLES, Hand, PayTable
from services.games.videopoker.returns import RETURNS
from services.games.videopoker.views import MachineView, RoundView
from services.shared import errors

GAME = "video-poker"
SEATS = 1  # a machine has one seat

PHASES: dict[str, int] = {
    "betting": videopoker_pb2.PHASE_BETTING,
    "dealing": videopoker_pb2.PHASE_DEALING,
    "holding": videopoker_pb2.PHASE_HOLDING,
    "drawing": videopoker_pb2.PHASE_DRAWING,
    "paying": videopoker_pb2.PHASE_PAYING,
    "closing": videopoker_pb2.PHASE_CLOSING,
    "ended": videopoker_pb2.PHASE_ENDED,
    "voided": videopoker_pb2.PHASE_VOIDED,
}


# ---------------------------------------------------------------- options


def config_from_options(options: videopoker_pb2.VideoPokerOptions, seats: int = 0) -> MachineConfig:
    """The machine's configuration for CreateTable (INVALID_ARGUMENT naming the problem):
    `seats` is the envelope's (0 or 1)."""
    if seats not in (0, SEATS):
        raise errors.InvalidArgument(
            f"options.seats must be 1 (or 0) for video poker: a machine has one seat, not {seats}"
        )
    if options.denomination < 0:
        raise errors.InvalidArgument(
            f"options.videopoker.denomination must be positive (chips a coin), "
            f"not {options.denomination}"
        )
    chosen = tuple(options.paytables)
    for name in chosen:
        if name not in PAYTABLES:
            raise errors.InvalidArgument(
                f"options.videopoker.paytables: unknown pay table {name!r}; "
                f"the platform offers {', '.join(PAYTABLES)} (VideoPokerService.ListPaytables)"
            )
    if len(set(chosen)) != len(chosen):
        raise errors.InvalidArgument("options.videopoker.paytables lists a pay table twice")
    return MachineConfig(
        paytables=chosen or tuple(PAYTABLES), denomination=options.denomination or 1
    )


def options_to_proto(config: MachineConfig) -> videopoker_pb2.VideoPokerOptions:
    return videopoker_pb2.VideoPokerOptions(
        paytables=config.paytables, denomination=config.denomination
    )


# ---------------------------------------------------------------- moves


def move_from_proto(move: videopoker_pb2.VideoPokerMove) -> Deal | Hold:
    """The rules' move for an ActRequest's `videopoker` member."""
    which = move.WhichOneof("move")
    if which == "deal":
        deal = move.deal
        return Deal(lines=deal.lines, coins=deal.coins, paytable=deal.paytable)
    if which == "hold":
        return Hold(round=move.hold.round, positions=tuple(move.hold.positions))
    raise errors.InvalidArgument(
        "videopoker must set its move: deal (lines, coins, paytable) or hold (positions)"
    )


def move_to_proto(move: Deal | Hold) -> videopoker_pb2.VideoPokerMove:
    if isinstance(move, Deal):
        return videopoker_pb2.VideoPokerMove(
            deal=videopoker_pb2.Deal(lines=move.lines, coins=move.coins, paytable=move.paytable)
        )
    return videopoker_pb2.VideoPokerMove(
        hold=videopoker_pb2.Hold(round=move.round, positions=move.positions)
    )


# ---------------------------------------------------------------- views


def _line_result(result: ev.LineResult) -> events_pb2.LineResult:
    return events_pb2.LineResult(
        line=result.line,
        cards=result.cards,
        hand=result.hand.value,
        best=result.best,
        win=result.win,
    )


def _round(view: RoundView, message: videopoker_pb2.RoundView) -> None:
    message.number = view.number
    message.lines = view.lines
    message.coins = view.coins
    message.paytable = view.paytable
    message.bet = view.bet
    message.phase = PHASES[view.phase]  # type: ignore[assignment]
    message.cards.extend(view.cards)
    message.split_position = view.split_position
    message.held = view.held is not None
    message.held_positions.extend(view.held or ())
    message.results.extend(_line_result(r) for r in view.results)
    message.win = view.win
    message.commitments.extend(
        videopoker_pb2.DeckCommitment(name=name, commitment=commitment)
        for name, commitment in view.commitments
    )


def legal_to_proto(moves: LegalMoves) -> videopoker_pb2.LegalMoves:
    return videopoker_pb2.LegalMoves(
        deal=moves.deal,
        lines=moves.lines if moves.deal else (),
        coins=moves.coins if moves.deal else (),
        paytables=moves.paytables if moves.deal else (),
        credits=moves.credits,
        hold_round=moves.hold_round,
    )


def view_to_proto(view: MachineView) -> videopoker_pb2.VideoPokerView:
    message = videopoker_pb2.VideoPokerView(
        player=view.player or "",
        credits=view.credits,
        paytables=view.paytables,
        denomination=view.denomination,
        moves=legal_to_proto(view.moves),
    )
    if view.round is not None:
        _round(view.round, message.round)
    if view.last is not None:
        _round(view.last, message.last)
    return message


def phase_name(view: MachineView) -> str:
    """The envelope's phase text: the round in play's phase, "" between rounds."""
    return view.round.phase if view.round is not None else ""


# ---------------------------------------------------------------- pay tables


def exact_return(value: Fraction) -> videopoker_pb2.ExactReturn:
    return videopoker_pb2.ExactReturn(
        fraction=f"{value.numerator}/{value.denominator}", percent=float(value * 100)
    )


def paytable_to_proto(table: PayTable) -> videopoker_pb2.Paytable:
    returns = RETURNS[table.name]
    return videopoker_pb2.Paytable(
        name=table.name,
        title=table.title,
        lines=[
            videopoker_pb2.PayLine(
                hand=line.hand.value,
                label=line.label,
                pays=line.pays,
                pays_at_max=line.pays_at_max,
            )
            for line in table.lines
        ],
        wild_rank=table.wild_rank or "",
        split_five_of_a_kind=table.split.five_of_a_kind,
        split_in_deal=str(table.split.in_deal),
        exact_return=exact_return(returns.standard),
        split_exact_return=exact_return(returns.split),
    )


def list_paytables() -> videopoker_pb2.ListPaytablesResponse:
    return videopoker_pb2.ListPaytablesResponse(
        paytables=[paytable_to_proto(table) for table in PAYTABLES.values()]
    )


# ---------------------------------------------------------------- events

EVENT_MESSAGES: dict[str, type[Message]] = {
    cls.__name__: typing.cast(type[Message], getattr(events_pb2, cls.__name__))
    for cls in ev.EVENT_TYPES.values()
}
EVENT_CLASSES: dict[str, type[ev.Event]] = {cls.__name__: cls for cls in ev.EVENT_TYPES.values()}
MESSAGE_TYPES: tuple[type[Message], ...] = tuple(EVENT_MESSAGES.values())

# The VideoPokerEvent field carrying each event message, by the message's name.
WRAPPER_FIELDS: dict[str, FieldDescriptor] = {
    field.message_type.name: field
    for field in events_pb2.VideoPokerEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    if field.message_type is not None
}


def is_event_message(message: Message) -> bool:
    return message.DESCRIPTOR.file is events_pb2.DESCRIPTOR and (
        message.DESCRIPTOR.name in EVENT_CLASSES
    )


def event_to_proto(event: ev.Event) -> Message:
    """The stored form of one of the rules' events."""
    name = type(event).__name__
    message_type = EVENT_MESSAGES.get(name)
    if message_type is None or EVENT_CLASSES[name] is not type(event):
        raise TypeError(f"{name} is not a video poker event")
    message = message_type()
    _fill(message, event)
    return message


def event_from_proto(message: Message) -> ev.Event:
    """The rules' event a stored message stands for."""
    if not is_event_message(message):
        raise TypeError(f"{message.DESCRIPTOR.full_name} is not a video poker event")
    return typing.cast(ev.Event, _build(EVENT_CLASSES[message.DESCRIPTOR.name], message))


def wrap_event(event: ev.Event) -> events_pb2.VideoPokerEvent:
    """The event as TableEvent carries it (its `videopoker` member)."""
    message = event_to_proto(event)
    wrapped = events_pb2.VideoPokerEvent()
    getattr(wrapped, WRAPPER_FIELDS[message.DESCRIPTOR.name].name).CopyFrom(message)
    return wrapped


def _fill(message: Message, record: object) -> None:
    for field in dataclasses.fields(typing.cast(Any, record)):
        value = getattr(record, field.name)
        descriptor = message.DESCRIPTOR.fields_by_name[field.name]
        if descriptor.is_repeated:
            container = getattr(message, field.name)
            if descriptor.message_type is not None:
                for item in value:
                    _fill(container.add(), item)
            else:
                container.extend(_scalar(item) for item in value)
        else:
            setattr(message, field.name, _scalar(value))


def _scalar(value: object) -> object:
    return value.value if isinstance(value, enum.Enum) else value


@cache
def _readers(cls: type) -> tuple[tuple[str, Callable[[Any], object]], ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        if typing.get_origin(hint) is tuple:
            (item, *_rest) = typing.get_args(hint)
            convert = _converter(item)
            out.append((field.name, _repeated(field.name, convert)))
        else:
            out.append((field.name, _single(field.name, _converter(hint))))
    return tuple(out)


def _repeated(name: str, convert: Callable[[Any], object]) -> Callable[[Any], object]:
    return lambda message: tuple(convert(item) for item in getattr(message, name))


def _single(name: str, convert: Callable[[Any], object]) -> Callable[[Any], object]:
    return lambda message: convert(getattr(message, name))


def _converter(hint: Any) -> Callable[[Any], object]:
    if hint is Hand:
        return Hand
    if dataclasses.is_dataclass(hint):
        cls = typing.cast(type, hint)
        return lambda raw: _build(cls, raw)
    if hint is int:
        return int
    return lambda raw: raw


def _build(cls: type, message: Message) -> object:
    return cls(**{name: read(message) for name, read in _readers(cls)})
