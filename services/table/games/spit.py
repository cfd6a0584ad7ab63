"""Spit's translation: croupier.spit.v1 <-> the Spit rules' values (services/games/spit). No
I/O, no rules: the rules check every move they are given; this module only checks that a value
is well formed (a card is a card, a move names one move) so the rules see typed values.

- options: `SpitOptions` <-> `SpitConfig` (zero fields are the documented defaults);
- moves: `SpitMove` (with its optional `Expected`) -> the rules' move and precondition;
- views: the rules' `SpitView` -> `SpitView` (the viewer's own legal moves included);
- events: each rules event <-> the croupier.spit.v1 message of the same name (stored under its
  full name), and the `SpitEvent` wrapper a watcher receives in TableEvent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.message import Message

from croupier.spit.v1 import events_pb2, spit_pb2
from croupier.table.v1 import events_pb2 as table_events_pb2
from croupier.table.v1 import table_pb2
from services.bots.hosted import HOSTED_POLICIES
from services.bots.spit_wire import PHASES, VARIATIONS, move_to_proto
from services.games.errors import RuleViolation
from services.games.spit import RULES
from services.games.spit import events as ev
from services.games.spit.cards import HIDDEN, is_card
from services.games.spit.config import SpitConfig, Variation
from services.games.spit.moves import Expected, MoveToSpace, PlayCard, Ready, Slap, SpitMove
from services.games.spit.state import SpitState
from services.games.spit.views import SpitView
from services.shared import errors, records
from services.shared.limits import MAX_CHIPS
from services.table.games import spit_history
from services.table.games.adapter import Rounds, Seating, seat_change

GAME = "spit"

# The numbers and the move spelling are the wire's, shared with the client side (spit_wire).
VARIATION_NUMBERS = {value: number for number, value in VARIATIONS.items()}
PHASE_NUMBERS: dict[str, int] = {phase: number for number, phase in PHASES.items()}
DEFAULTS = SpitConfig()

# Every rules event -> its message (same class name in croupier/spit/v1/events.proto), and
# back by the message's full name (what the event store keeps).
EVENT_MESSAGES: dict[type[ev.SpitEvent], type[Message]] = records.message_types(
    ev.EVENT_TYPES, events_pb2
)
EVENT_RECORDS: dict[str, type[ev.SpitEvent]] = {
    message.DESCRIPTOR.full_name: record for record, message in EVENT_MESSAGES.items()
}
# The SpitEvent wrapper's member for each message.
WRAPPER_FIELDS: dict[str, str] = {
    field.message_type.full_name: field.name
    for field in events_pb2.SpitEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    if field.message_type is not None
}


# ---------------------------------------------------------------- options


def config_from_options(options: table_pb2.TableOptions) -> SpitConfig:
    """The rules' configuration for CreateTable's options: `options.spit` and the envelope's
    seats (two, or 0 for the usual two) and buy-in range (INVALID_ARGUMENT naming the option
    and what it may be)."""
    if options.seats not in (0, 2):
        raise errors.InvalidArgument(
            f"options.seats: a Spit table has 2 seats, not {options.seats}"
        )
    spit = options.spit
    variation = VARIATIONS.get(spit.variation) if spit.variation else Variation.SPIT
    if variation is None:
        raise errors.InvalidArgument(
            f"options.spit.variation {spit.variation} is not one of "
            + ", ".join(spit_pb2.Variation.keys()[1:])
        )
    chips = {
        "options.spit.stake": spit.stake,
        "options.min_buy_in": options.min_buy_in,
        "options.max_buy_in": options.max_buy_in,
    }
    for name, value in {
        **chips,
        "options.spit.piles": spit.piles,
        "options.spit.slap_ms": spit.slap_ms,
        "options.spit.ready_ms": spit.ready_ms,
        "options.spit.stall_ms": spit.stall_ms,
    }.items():
        if value < 0:
            raise errors.InvalidArgument(f"{name} must not be negative, not {value}")
    for name, value in chips.items():
        if value > MAX_CHIPS:
            raise errors.InvalidArgument(
                f"{name} is {value} chips; chip amounts are at most {MAX_CHIPS}"
            )
    try:
        return SpitConfig(
            variation=variation,
            piles=spit.piles or DEFAULTS.piles,
            alternating_colours=spit.alternating_colours,
            stake=spit.stake,
            slap_ms=spit.slap_ms or DEFAULTS.slap_ms,
            ready_ms=spit.ready_ms or DEFAULTS.ready_ms,
            stall_ms=spit.stall_ms if spit.HasField("stall_ms") else DEFAULTS.stall_ms,
            min_buy_in=options.min_buy_in or max(1, spit.stake),
            max_buy_in=options.max_buy_in or MAX_CHIPS,
        ).checked()
    except RuleViolation as violation:
        raise errors.InvalidArgument(f"options: {violation.message}") from violation


def options_to_proto(config: SpitConfig) -> spit_pb2.SpitOptions:
    """Every Spit option the table was created with (defaults filled in)."""
    return spit_pb2.SpitOptions(
        variation=VARIATION_NUMBERS[config.variation],  # type: ignore[arg-type]
        piles=config.piles,
        alternating_colours=config.alternating_colours,
        stake=config.stake,
        slap_ms=config.slap_ms,
        ready_ms=config.ready_ms,
        stall_ms=config.stall_ms,
    )


# ---------------------------------------------------------------- moves


def _card(text: str, where: str) -> str | None:
    if not text:
        return None
    if not is_card(text):
        raise errors.InvalidArgument(
            f"{where} {text!r} is not a card: a rank (2-9, T, J, Q, K, A) then a suit (c, d, h, "
            's), as "Td"'
        )
    return text


def move_from_proto(move: spit_pb2.SpitMove) -> tuple[SpitMove, Expected | None]:
    """The rules' move and its precondition (None: decide against whatever state it meets)."""
    kind = move.WhichOneof("move")
    chosen: SpitMove
    if kind == "ready":
        chosen = Ready()
    elif kind == "play_card":
        play = move.play_card
        chosen = PlayCard(play.source, play.target, _card(play.card, "spit.play_card.card"))
    elif kind == "move_to_space":
        chosen = MoveToSpace(move.move_to_space.source, move.move_to_space.target)
    elif kind == "slap":
        chosen = Slap(move.slap.pile)
    else:
        raise errors.InvalidArgument("spit: set one move: ready, play_card, move_to_space or slap")
    if not move.HasField("expected"):
        return chosen, None
    expected = move.expected
    return chosen, Expected(
        deal=expected.deal if expected.HasField("deal") else None,
        top=_card(expected.top, "spit.expected.top"),
    )


# ---------------------------------------------------------------- views


def view_to_proto(view: SpitView) -> spit_pb2.SpitView:
    """The viewer's Spit view (hidden cards are "??" already: the rules' view hides them)."""
    message = spit_pb2.SpitView(
        variation=VARIATION_NUMBERS[Variation(view.variation)],  # type: ignore[arg-type]
        piles=view.piles,
        alternating_colours=view.alternating_colours,
        stake=view.stake,
        one_pile=view.one_pile,
        side_stacks=view.side_stacks,
        to_act=view.to_act,
        result=view.result,
    )
    if view.game is not None:
        message.game = view.game
    if view.deal is not None:
        message.deal = view.deal
    if view.phase is not None:
        message.phase = PHASE_NUMBERS[view.phase]  # type: ignore[assignment]
    if view.winner is not None:
        message.winner = view.winner
    for seat in view.seats:
        if seat is None:
            continue
        shown = message.seats.add(
            seat=seat.seat,
            player=seat.player,
            stack=seat.stack,
            sitting_out=seat.sitting_out,
            spit=seat.spit,
            ready=seat.ready,
            cards=seat.cards,
        )
        for place in seat.places:
            shown.places.add(down=place.down, up=place.up or "")
        if seat.slapped is not None:
            shown.slapped = seat.slapped
        if seat.takes is not None:
            shown.takes = seat.takes
    for pile in view.middle:
        added = message.middle.add(cards=pile.cards)
        if pile.starter is not None:
            added.starter = pile.starter
    message.gathered.extend(view.gathered)
    message.legal.extend(move_to_proto(m) for m in view.legal)
    return message


# ---------------------------------------------------------------- events


def is_event(event: object) -> bool:
    return type(event) in EVENT_MESSAGES


def event_to_message(event: ev.SpitEvent) -> Message:
    """The stored (and streamed) form of a rules event."""
    return records.to_message(event, EVENT_MESSAGES[type(event)])


def event_from_message(message: Message) -> ev.SpitEvent | None:
    """The rules event a stored message stands for (None: not one of Spit's)."""
    record = EVENT_RECORDS.get(message.DESCRIPTOR.full_name)
    return None if record is None else records.from_message(message, record)


def wrapped(message: Message) -> events_pb2.SpitEvent:
    """A Spit event message inside the SpitEvent a watcher receives (TableEvent.spit)."""
    wrapper = events_pb2.SpitEvent()
    getattr(wrapper, WRAPPER_FIELDS[message.DESCRIPTOR.full_name]).CopyFrom(message)
    return wrapper


def unwrapped(wrapper: events_pb2.SpitEvent) -> Message:
    """The event message a SpitEvent carries (INVALID_ARGUMENT when it carries none)."""
    member = wrapper.WhichOneof("event")
    if member is None:
        raise errors.InvalidArgument("SpitEvent carries no event")
    message: Message = getattr(wrapper, member)
    return message


# ---------------------------------------------------------------- the table adapter


class SpitEvents:
    """Spit's events <-> croupier.spit.v1 messages (adapter.EventCodec), inside TableEvent's
    `spit` member (the SpitEvent wrapper) on a watch stream."""

    def message_types(self) -> Sequence[type[Message]]:
        return list(EVENT_MESSAGES.values())

    def former_names(self) -> Sequence[tuple[str, type[Message]]]:
        return ()  # stored under these names since Spit had its own package

    def to_message(self, event: object) -> Message:
        if type(event) not in EVENT_MESSAGES:
            raise ValueError(f"{type(event).__name__} is not one of Spit's events")
        return event_to_message(event)  # type: ignore[arg-type]

    def from_message(self, message: Message) -> object | None:
        return event_from_message(message)

    def table_event(self, message: Message, event: table_events_pb2.TableEvent) -> None:
        event.spit.CopyFrom(wrapped(message))


class SpitTableAdapter:
    """Spit at the table (adapter.GameTable): Spit, four piles, alternating colours, Bicycle's
    Spit and Speed, two seats."""

    name = RULES.name
    proto_field = "spit"
    rules = RULES
    # No turns: its bots are hosted players (services/bots/hosted.py) and its deadlines,
    # renamed at every card moved, are swept from an index rather than sent as tasks.
    realtime = True
    default_seed_reveal = table_events_pb2.SEED_REVEAL_AUDITORS
    bot_policies = HOSTED_POLICIES
    events = SpitEvents()

    def config_from_options(self, options: table_pb2.TableOptions) -> SpitConfig:
        return config_from_options(options)

    def opening_events(self, config: SpitConfig) -> Sequence[object]:
        return ()

    def initial_state(self, options: table_pb2.TableOptions) -> SpitState:
        # TableCreated records every option (fill_options): the configuration is there.
        return RULES.initial_state(config_from_options(options))

    def fill_options(self, state: SpitState, options: table_pb2.TableOptions) -> None:
        config = state.config
        options.spit.CopyFrom(options_to_proto(config))
        options.seats = 2
        options.min_buy_in = config.min_buy_in
        options.max_buy_in = config.max_buy_in

    def seat_count(self, state: SpitState) -> int:
        return 2

    def move_from_request(self, request: table_pb2.ActRequest) -> tuple[object, object | None]:
        if request.WhichOneof("move") != "spit":
            raise errors.InvalidArgument(
                "this is a Spit table: send the move in spit (a SpitMove: ready, play_card, "
                "move_to_space or slap)"
            )
        if request.action or request.amount or request.cards:
            raise errors.InvalidArgument(
                "action, amount and cards are poker's; a Spit move is spit alone"
            )
        if request.expected_version and request.spit.HasField("expected"):
            raise errors.InvalidArgument(
                "guard a move with expected_version or with spit.expected, not both"
            )
        return move_from_proto(request.spit)

    def sit_in_option(self, request: table_pb2.SitInRequest) -> object | None:
        if request.post_big_blind:
            raise errors.InvalidArgument("post_big_blind is poker's: Spit has no blinds")
        return None

    def rounds(self, state: SpitState) -> Rounds:
        game = state.game
        return Rounds(game.number if state.playing and game is not None else None, state.games)

    def fill_view(
        self, view: SpitView, message: table_pb2.TableView, seats: Mapping[int, table_pb2.SeatView]
    ) -> None:
        message.spit.CopyFrom(view_to_proto(view))

    def next_card(self, state: SpitState) -> table_pb2.CardDue | None:
        return None  # never dealt by a live dealer

    def fill_decision(
        self, state: SpitState, seat: int, request: table_events_pb2.ActionRequested
    ) -> None:
        return None

    def seating(self, event: object) -> Seating | None:
        return seat_change(event, ev.PlayerSeated, ev.PlayerLeft)

    def round_of(self, event: object) -> tuple[int, bool] | None:
        if isinstance(event, ev.GameStarted):
            return event.game, True
        if isinstance(event, ev.GameEnded):
            return event.game, False
        return None

    def history(
        self,
        state: SpitState,
        players: Mapping[int, str],
        events: Sequence[object],
        viewer: int | None,
        full: bool,
        table_id: str,
    ) -> tuple[str, str]:
        return "", spit_history.text(players, events, viewer, full, table_id)


ADAPTER = SpitTableAdapter()


__all__ = [
    "ADAPTER",
    "GAME",
    "HIDDEN",
    "config_from_options",
    "event_from_message",
    "event_to_message",
    "move_from_proto",
    "move_to_proto",
    "options_to_proto",
    "unwrapped",
    "view_to_proto",
    "wrapped",
]
