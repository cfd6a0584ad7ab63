"""Translation between the TableService envelope and the table's values (no I/O, no rules).

The envelope's options and view fields (seats, stacks, time banks, who may act, deadlines),
and a (redacted) stored event -> the TableEvent a watcher receives. The game's own parts are
its translation module's (services/table/games/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.games.poker.definitions import TableConfig
from services.games.poker.views import View
from services.shared import errors
from services.table import codec
from services.table.games import poker
from services.table.shell import ShellState


def config_from_options(options: table_pb2.TableOptions) -> TableConfig:
    """The game's configuration for CreateTable options (INVALID_ARGUMENT naming the problem)."""
    return poker.config_from_options(options)


def options_to_proto(config: TableConfig, shell: ShellState) -> table_pb2.TableOptions:
    """The options the table was created with, every one of them: the envelope's (recorded in
    TableCreated) and the game's (its configuration)."""
    options = table_pb2.TableOptions(
        currency=shell.currency,
        action_time_ms=shell.action_time_ms,
        time_bank_ms=shell.time_bank_ms,
        time_bank_chunk_ms=shell.time_bank_chunk_ms,
        time_bank_refill_ms=shell.time_bank_refill_ms,
        time_bank_refill_every_hands=shell.time_bank_refill_every_hands,
        time_bank_cap_ms=shell.time_bank_cap_ms,
        min_players_to_start=shell.min_players_to_start,
    )
    poker.fill_options(config, options)
    return options


def deadline_id(hand: int, action_number: int) -> str:
    """The id a decision goes by in views and ApplyTimeout: "<round>/<n>"."""
    return f"{hand}/{action_number}"


def parse_deadline_id(deadline_id: str) -> tuple[int, int]:
    """(round, n) of a deadline id "<round>/<n>" (INVALID_ARGUMENT for anything else)."""
    round_text, _, number_text = deadline_id.partition("/")
    if not (round_text.isdigit() and number_text.isdigit()):
        raise errors.InvalidArgument(
            f'deadline_id {deadline_id!r} is not a deadline id: they read "<round>/<n>" '
            "(TableView.deadlines[].id)"
        )
    return int(round_text), int(number_text)


def view_to_proto(
    view: View,
    table_id: str,
    version: int,
    options: table_pb2.TableOptions,
    bots: tuple[str, ...],
    deadline_unix_ms: int,
    action_number: int,
    last_hand: int,
    *,
    time_banks: Mapping[int, int] | None = None,
    deadline_from_time_bank: bool = False,
    requested_bots: Sequence[tuple[str, float]] = (),
    bots_seated: Sequence[str] = (),
) -> table_pb2.TableView:
    """The TableView proto. `time_banks` maps a seat to its remaining bank (ms): public, like
    stacks, so every viewer gets every occupied seat's; `deadline_from_time_bank` says the
    current deadline was moved by the bank (only meaningful while someone is to act)."""
    banks = time_banks or {}
    acting = view.to_act is not None
    message = table_pb2.TableView(
        table_id=table_id,
        version=version,
        options=options,
        # Between hands this stays the last hand's number (0 only before the first hand),
        # as the proto documents; `hand_in_progress` tells the two apart.
        hand_number=view.hand if view.hand is not None else last_hand,
        hand_in_progress=view.hand is not None,
        to_act=-1 if view.to_act is None else view.to_act,
        deadline_unix_ms=deadline_unix_ms if acting else 0,
        viewer_seat=-1 if view.viewer is None else view.viewer,
        action_number=action_number,
        deadline_from_time_bank=deadline_from_time_bank and acting,
        requested_bots=[table_pb2.BotSeat(policy=p, difficulty=d) for p, d in requested_bots],
        bots_seated=list(bots_seated),
    )
    if view.to_act is not None:
        message.acting_seats.append(view.to_act)
        if action_number and view.hand is not None:
            message.deadlines.append(
                table_pb2.Deadline(
                    seat=view.to_act,
                    id=deadline_id(view.hand, action_number),
                    deadline_unix_ms=deadline_unix_ms,
                    from_time_bank=deadline_from_time_bank,
                )
            )
    seats = {}
    for s in view.seats:
        seats[s.seat] = message.seats.add(
            seat=s.seat,
            player_id=s.player,
            stack=s.stack,
            sitting_out=s.sitting_out,
            in_hand=s.in_hand,
            is_bot=s.player in bots,
            time_bank_ms=banks.get(s.seat, 0) if s.player else 0,
        )
    poker.fill_view(view, message, seats)
    return message


# The field of TableEvent's `event` oneof that carries each event message, by the message's
# full name: looked up per streamed event, so worked out once here.
EVENT_FIELDS: dict[str, FieldDescriptor] = {
    field.message_type.full_name: field
    for field in events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    if field.message_type is not None
}


def event_field(message: Message) -> FieldDescriptor:
    """The TableEvent field that carries `message`."""
    field = EVENT_FIELDS.get(message.DESCRIPTOR.full_name)
    if field is None:
        raise codec.CodecError(
            f"TableEvent has no field for {message.DESCRIPTOR.full_name}: add it to its "
            "`event` oneof in events.proto"
        )
    return field


def event_to_proto(
    table_id: str, version: int, recorded_at_ms: int, event: object
) -> events_pb2.TableEvent:
    """The TableEvent carrying one (already redacted) event."""
    message = codec.to_message(event)
    wrapped = events_pb2.TableEvent(
        table_id=table_id, version=version, recorded_at_ms=recorded_at_ms
    )
    getattr(wrapped, event_field(message).name).CopyFrom(message)
    return wrapped
