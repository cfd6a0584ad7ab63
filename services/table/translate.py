"""Translation between the TableService protos and the engine's values (no I/O, no rules).

Options -> TableConfig, action enums -> engine action names, the engine's `View` -> the
TableView message, and a (redacted) stored event -> the TableEvent a watcher receives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.table.v1 import events_pb2, table_pb2
from services.games.errors import RuleViolation
from services.games.poker.catalog import GAMES
from services.games.poker.definitions import Structure, TableConfig
from services.games.poker.events import Action
from services.games.poker.legal import LegalActions
from services.games.poker.views import View
from services.shared import errors
from services.table import codec

GAME_NAMES: dict[int, str] = {
    table_pb2.GAME_TEXAS_HOLDEM: "texas-holdem",
    table_pb2.GAME_HOLDEM_HILO: "holdem-hilo",
    table_pb2.GAME_SPIT_IN_THE_OCEAN: "spit-in-the-ocean",
    table_pb2.GAME_SIX_CARD_OPEN_DRAW: "six-card-open-draw",
}
GAME_ENUMS = {name: number for number, name in GAME_NAMES.items()}

STRUCTURES: dict[int, Structure] = {
    table_pb2.STRUCTURE_NO_LIMIT: Structure.NO_LIMIT,
    table_pb2.STRUCTURE_POT_LIMIT: Structure.POT_LIMIT,
    table_pb2.STRUCTURE_FIXED_LIMIT: Structure.FIXED_LIMIT,
}
STRUCTURE_ENUMS = {value: number for number, value in STRUCTURES.items()}

ACTIONS: dict[int, str] = {
    table_pb2.ACTION_FOLD: Action.FOLD,
    table_pb2.ACTION_CHECK: Action.CHECK,
    table_pb2.ACTION_CALL: Action.CALL,
    table_pb2.ACTION_BET: Action.BET,
    table_pb2.ACTION_RAISE: Action.RAISE,
    table_pb2.ACTION_ALL_IN: Action.ALL_IN,
    table_pb2.ACTION_DISCARD: Action.DISCARD,
    table_pb2.ACTION_OPEN_DISCARD: Action.OPEN_DISCARD,
    table_pb2.ACTION_SHOW: Action.SHOW,
    table_pb2.ACTION_MUCK: Action.MUCK,
    table_pb2.ACTION_DECLARE_BOARD: Action.DECLARE_BOARD,
}
ACTION_ENUMS = {name: number for number, name in ACTIONS.items()}


def config_from_options(options: table_pb2.TableOptions) -> TableConfig:
    """The engine configuration for CreateTable options (INVALID_ARGUMENT naming the problem)."""
    game_name = GAME_NAMES.get(options.game)
    if game_name is None:
        raise errors.InvalidArgument(
            "options.game must be one of " + ", ".join(table_pb2.Game.keys()[1:])
        )
    game = GAMES[game_name]
    structure = STRUCTURES.get(options.structure) if options.structure else None
    seats = options.seats or min(6, game.max_seats)
    try:
        return TableConfig(
            game=game,
            structure=structure,
            seats=seats,
            small_blind=options.small_blind or (1 if game.forced_bets == "blinds" else 0),
            big_blind=options.big_blind or (2 if game.forced_bets == "blinds" else 0),
            ante=options.ante,
            small_bet=options.small_bet,
            big_bet=options.big_bet,
            min_buy_in=options.min_buy_in or 1,
            max_buy_in=options.max_buy_in or 10**12,
            draw_limit=options.draw_limit or None,
            five_of_a_kind_beats_straight_flush=(
                options.five_of_a_kind != table_pb2.FIVE_KIND_BELOW_STRAIGHT_FLUSH
            ),
            first_button_seat=options.first_button if options.HasField("first_button") else 0,
            rake_basis_points=options.rake_basis_points,
            rake_cap=options.rake_cap,
            fixed_limit_raises=options.raise_cap or 3,
            uncapped_heads_up=not options.capped_heads_up,
        )
    except RuleViolation as violation:
        raise errors.InvalidArgument(violation.message) from violation


def options_from_config(
    config: TableConfig, currency: str, action_time_ms: int, time_bank_ms: int
) -> table_pb2.TableOptions:
    options = table_pb2.TableOptions(
        game=GAME_ENUMS.get(config.game.name, 0),  # type: ignore[arg-type]
        structure=STRUCTURE_ENUMS.get(config.limit, 0),  # type: ignore[arg-type]
        seats=config.seats,
        currency=currency,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        ante=config.ante,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        raise_cap=config.fixed_limit_raises,
        capped_heads_up=not config.uncapped_heads_up,
        min_buy_in=config.min_buy_in,
        max_buy_in=config.max_buy_in,
        action_time_ms=action_time_ms,
        time_bank_ms=time_bank_ms,
        rake_basis_points=config.rake_basis_points,
        rake_cap=config.rake_cap,
        draw_limit=config.draw_limit or 0,
        five_of_a_kind=(
            table_pb2.FIVE_KIND_HIGHEST
            if config.five_of_a_kind_beats_straight_flush
            else table_pb2.FIVE_KIND_BELOW_STRAIGHT_FLUSH
        ),
        first_button=config.first_button_seat,
    )
    return options


def legal_to_proto(legal: LegalActions | None) -> list[table_pb2.LegalAction]:
    if legal is None:
        return []
    out = []
    for name in sorted(legal.actions):
        action = table_pb2.LegalAction(action=ACTION_ENUMS[name])  # type: ignore[arg-type]
        if name in (Action.BET, Action.RAISE):
            action.min_amount, action.max_amount = legal.min_to, legal.max_to
        elif name == Action.CALL:
            action.min_amount = action.max_amount = legal.to_call
        elif name == Action.ALL_IN:
            action.min_amount = action.max_amount = legal.all_in_to
        elif name in (Action.DISCARD, Action.OPEN_DISCARD):
            action.min_cards, action.max_cards = legal.min_discards, legal.max_discards
            action.discardable.extend(legal.discardable)
        out.append(action)
    return out


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
    message = table_pb2.TableView(
        table_id=table_id,
        version=version,
        options=options,
        # Between hands this stays the last hand's number (0 only before the first hand),
        # as the proto documents; `hand_in_progress` tells the two apart.
        hand_number=view.hand if view.hand is not None else last_hand,
        hand_in_progress=view.hand is not None,
        button=-1 if view.button is None else view.button,
        phase=view.phase or "",
        board=list(view.board),
        to_act=-1 if view.to_act is None else view.to_act,
        deadline_unix_ms=deadline_unix_ms if view.to_act is not None else 0,
        viewer_seat=-1 if view.viewer is None else view.viewer,
        legal_actions=legal_to_proto(view.legal),
        action_number=action_number,
        current_bet=view.current_bet,
        deadline_from_time_bank=deadline_from_time_bank and view.to_act is not None,
        requested_bots=[table_pb2.BotSeat(policy=p, difficulty=d) for p, d in requested_bots],
        bots_seated=list(bots_seated),
    )
    for s in view.seats:
        message.seats.append(
            table_pb2.SeatView(
                seat=s.seat,
                player_id=s.player,
                stack=s.stack,
                bet=s.bet,
                committed=s.committed,
                folded=s.folded,
                all_in=s.all_in,
                sitting_out=s.sitting_out,
                in_hand=s.in_hand,
                cards=list(s.cards),
                open_discards=list(s.open_discards),
                is_bot=s.player in bots,
                shown=s.shown,
                mucked=s.mucked,
                hand_label=s.rank.high.label if s.rank is not None else "",
                time_bank_ms=banks.get(s.seat, 0) if s.player else 0,
            )
        )
    for amount in view.pots:
        message.pots.append(table_pb2.PotView(amount=amount))
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
