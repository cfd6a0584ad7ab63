"""Translation between the TableService envelope and the table's values (no I/O, no rules).

The envelope's options and view fields (seats, stacks, time banks, who may act, deadlines),
and a (redacted) stored event -> the TableEvent a watcher receives. The game's own parts are
its table adapter's (services/table/games/): this module asks the table's adapter for them.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.shared import errors
from services.table import codec
from services.table.decisions import open_decisions
from services.table.games.adapter import GameTable
from services.table.shell import DECK, ShellState, Table


def options_to_proto(table: Table) -> table_pb2.TableOptions:
    """The options the table was created with, every one of them: the envelope's (recorded in
    TableCreated) and the game's (its configuration)."""
    shell = table.shell
    options = table_pb2.TableOptions(
        currency=shell.currency,
        action_time_ms=shell.action_time_ms,
        time_bank_ms=shell.time_bank_ms,
        time_bank_chunk_ms=shell.time_bank_chunk_ms,
        time_bank_refill_ms=shell.time_bank_refill_ms,
        time_bank_refill_every_hands=shell.time_bank_refill_every_hands,
        time_bank_cap_ms=shell.time_bank_cap_ms,
        min_players_to_start=shell.min_players_to_start,
        seed_reveal=shell.seed_reveal,  # type: ignore[arg-type]
    )
    table.game.fill_options(table.state, options)
    return options


def deadline_id(hand: int, action_number: int) -> str:
    """The id a decision goes by in views and ApplyTimeout: "<round>/<n>"."""
    return f"{hand}/{action_number}"


def parse_deadline_id(deadline_id: str) -> tuple[int, int]:
    """(round, n) of a deadline id "<round>/<n>" (INVALID_ARGUMENT for anything else)."""
    round_text, _, number_text = deadline_id.partition("/")
    if not (round_text.isdigit() and number_text.isdigit()):
        raise errors.InvalidArgument(
            f"deadline_id {errors.shown(deadline_id)} is not a deadline id: "
            'they read "<round>/<n>" '
            "(TableView.deadlines[].id)"
        )
    return int(round_text), int(number_text)


def view_to_proto(table: Table, viewer: int | None) -> table_pb2.TableView:
    """The TableView proto of `table` for `viewer` (a seat, None for a spectator). Time banks
    are public, like stacks, so every viewer gets every occupied seat's."""
    game, state, shell = table.game, table.state, table.shell
    rules = game.rules
    rounds = game.rounds(state)
    acting = sorted(rules.to_act(state))
    message = table_pb2.TableView(
        table_id=table.table_id,
        version=table.version,
        options=options_to_proto(table),
        # Between rounds this stays the last round's number (0 only before the first), as
        # the proto documents; `hand_in_progress` tells the two apart.
        hand_number=rounds.current if rounds.current is not None else rounds.last,
        hand_in_progress=rounds.current is not None,
        to_act=acting[0] if len(acting) == 1 else -1,
        viewer_seat=-1 if viewer is None else viewer,
        requested_bots=[table_pb2.BotSeat(policy=p, difficulty=d) for p, d in shell.requested_bots],
        bots_seated=list(shell.bots_seated()),
        acting_seats=acting,
        status=status_of(shell),
    )
    decisions = sorted(open_decisions(table), key=lambda d: d.seat)
    for d in decisions:
        message.deadlines.append(
            table_pb2.Deadline(
                seat=d.seat,
                id=deadline_id(d.hand, d.action_number),
                deadline_unix_ms=d.deadline_unix_ms,
                from_time_bank=d.extended,
            )
        )
    if len(decisions) == 1 and len(acting) == 1 and decisions[0].seat == acting[0]:
        # The first spelling: the one seat to act and its one decision.
        only = decisions[0]
        message.deadline_unix_ms = only.deadline_unix_ms
        message.action_number = only.action_number
        message.deadline_from_time_bank = only.extended
    for u in sorted(shell.upcoming, key=lambda u: (u.round, u.name)):
        message.entropy_rounds.append(
            table_pb2.EntropyRound(
                hand=u.round,
                shuffle_id=u.shuffle_id,
                commitment=u.commitment,
                phase=table_pb2.ENTROPY_PHASE_REVEAL
                if u.sealed
                else table_pb2.ENTROPY_PHASE_COMMIT,
                until_unix_ms=u.reveal_until_ms if u.sealed else u.commit_until_ms,
                name="" if u.name == DECK else u.name,
                positions_root=u.positions_root,
            )
        )
    banks = dict(shell.banks.remaining)
    seats = {}
    for s in rules.seats(state):
        seats[s.seat] = message.seats.add(
            seat=s.seat,
            player_id=s.player,
            stack=s.stack,
            sitting_out=s.sitting_out,
            in_hand=s.in_round,
            is_bot=s.player in shell.bots,
            time_bank_ms=banks.get(s.seat, 0) if s.player else 0,
        )
    game.fill_view(rules.view_for(state, viewer), message, seats)
    due = game.next_card(state)
    if due is not None:
        message.next_card.CopyFrom(due)
    return message


def next_card(table: Table) -> table_pb2.CardDue | None:
    """The card a live-dealer table expects next (ReportCardResponse.next_card)."""
    return table.game.next_card(table.state)


def summary_to_proto(table: Table) -> table_pb2.TableSummary:
    return table_pb2.TableSummary(
        table_id=table.table_id,
        options=options_to_proto(table),
        players=len(table.game.rules.seats(table.state)),
        hand_number=table.game.rounds(table.state).last,
        version=table.version,
        status=status_of(table.shell),
    )


def status_of(shell: ShellState) -> table_pb2.TableStatus.ValueType:
    """Open, closing (CloseTable recorded) or closed (every seat paid out)."""
    if shell.closed:
        return table_pb2.TABLE_STATUS_CLOSED
    return table_pb2.TABLE_STATUS_CLOSING if shell.closing else table_pb2.TABLE_STATUS_OPEN


# The field of TableEvent's `event` oneof that carries each envelope message, by the
# message's full name: looked up per streamed event, so worked out once here.
EVENT_FIELDS: dict[str, FieldDescriptor] = {
    field.message_type.full_name: field
    for field in events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    if field.message_type is not None
}


def event_field(message: Message) -> FieldDescriptor:
    """The TableEvent field that carries the envelope's `message`."""
    field = EVENT_FIELDS.get(message.DESCRIPTOR.full_name)
    if field is None:
        raise codec.CodecError(
            f"TableEvent has no field for {message.DESCRIPTOR.full_name}: add it to its "
            "`event` oneof in events.proto"
        )
    return field


def event_to_proto(
    table_id: str, version: int, recorded_at_ms: int, event: object, game: GameTable
) -> events_pb2.TableEvent:
    """The TableEvent carrying one (already redacted) event: the envelope's at its own field,
    the game's where its adapter puts it."""
    wrapped = events_pb2.TableEvent(
        table_id=table_id, version=version, recorded_at_ms=recorded_at_ms
    )
    if isinstance(event, Message):
        getattr(wrapped, event_field(event).name).CopyFrom(event)
    else:
        game.events.table_event(game.events.to_message(event), wrapped)
    return wrapped


def message_to_proto(
    table_id: str, version: int, recorded_at_ms: int, message: Message, game: GameTable
) -> events_pb2.TableEvent:
    """The TableEvent carrying a stored message as it is (an event redaction left alone)."""
    wrapped = events_pb2.TableEvent(
        table_id=table_id, version=version, recorded_at_ms=recorded_at_ms
    )
    field = EVENT_FIELDS.get(message.DESCRIPTOR.full_name)
    if field is not None:
        getattr(wrapped, field.name).CopyFrom(message)
    else:
        game.events.table_event(message, wrapped)
    return wrapped
