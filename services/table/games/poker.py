"""Poker's translation: croupier.poker.v1 (and poker's first spelling in croupier.table.v1) <->
the poker engine's values. No I/O, no rules: the engine checks every value it is given.

A poker table's options, moves and views exist twice in the table API: in the poker package
(`TableOptions.poker`, `ActRequest.poker`, `TableView.poker`) and as the poker fields of the
table messages themselves, their first spelling from before the table served other games.
Requests may use either (both only where they agree); views fill both, so clients written
against either keep working.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import events_pb2, table_pb2
from croupier.table.v1 import events_pb2 as table_events_pb2
from services.bots.policies import NAMES as BOT_POLICIES
from services.games.errors import RuleViolation
from services.games.poker import events as ev
from services.games.poker.catalog import GAMES, TEXAS_HOLDEM
from services.games.poker.definitions import OddChips, Structure, TableConfig
from services.games.poker.events import Action
from services.games.poker.game_rules import RULES
from services.games.poker.legal import LegalActions, legal_actions
from services.games.poker.live import table as live_table
from services.games.poker.live.procedures import BOARD
from services.games.poker.moves import InHand, PokerMove, PostBigBlind
from services.games.poker.table import PokerTable
from services.games.poker.views import View
from services.shared import errors
from services.shared.limits import MAX_CHIPS
from services.table import codec
from services.table.games import poker_codec, poker_history
from services.table.games.adapter import Rounds, Seating, seat_change

# Variant and structure numbers are the same in croupier.poker.v1 and table.v1's first spelling.
VARIANTS: dict[int, str] = {
    poker_pb2.VARIANT_TEXAS_HOLDEM: "texas-holdem",
    poker_pb2.VARIANT_HOLDEM_HILO: "holdem-hilo",
    poker_pb2.VARIANT_SPIT_IN_THE_OCEAN: "spit-in-the-ocean",
    poker_pb2.VARIANT_SIX_CARD_OPEN_DRAW: "six-card-open-draw",
}
VARIANT_NUMBERS = {name: number for number, name in VARIANTS.items()}
STRUCTURES: dict[int, Structure] = {
    poker_pb2.STRUCTURE_NO_LIMIT: Structure.NO_LIMIT,
    poker_pb2.STRUCTURE_POT_LIMIT: Structure.POT_LIMIT,
    poker_pb2.STRUCTURE_FIXED_LIMIT: Structure.FIXED_LIMIT,
}
STRUCTURE_NUMBERS = {value: number for number, value in STRUCTURES.items()}
ACTIONS: dict[int, str] = {
    poker_pb2.ACTION_FOLD: Action.FOLD,
    poker_pb2.ACTION_CHECK: Action.CHECK,
    poker_pb2.ACTION_CALL: Action.CALL,
    poker_pb2.ACTION_BET: Action.BET,
    poker_pb2.ACTION_RAISE: Action.RAISE,
    poker_pb2.ACTION_ALL_IN: Action.ALL_IN,
    poker_pb2.ACTION_DISCARD: Action.DISCARD,
    poker_pb2.ACTION_OPEN_DISCARD: Action.OPEN_DISCARD,
    poker_pb2.ACTION_SHOW: Action.SHOW,
    poker_pb2.ACTION_MUCK: Action.MUCK,
    poker_pb2.ACTION_DECLARE_BOARD: Action.DECLARE_BOARD,
}
ACTION_NUMBERS = {name: number for number, name in ACTIONS.items()}

# TableOptions' first spelling of each PokerOptions field (the same name unless listed).
_FIRST_SPELLING = {"game": "variant"}
_FIRST_SPELLING_FIELDS = (
    "game",
    "structure",
    "small_blind",
    "big_blind",
    "ante",
    "small_bet",
    "big_bet",
    "raise_cap",
    "capped_heads_up",
    "rake_basis_points",
    "rake_cap",
    "draw_limit",
    "five_of_a_kind",
    "first_button",
)


def poker_options(options: table_pb2.TableOptions) -> poker_pb2.PokerOptions:
    """The table's poker options, from `options.poker` or the first spelling (INVALID_ARGUMENT
    when both are set and disagree)."""
    if options.HasField("poker"):
        chosen = options.poker
        for name in _FIRST_SPELLING_FIELDS:
            if _is_set(options, name):
                mine = getattr(options, name)
                theirs = getattr(chosen, _FIRST_SPELLING.get(name, name))
                if mine != theirs:
                    raise errors.InvalidArgument(
                        f"options.{name} ({mine}) disagrees with options.poker."
                        f"{_FIRST_SPELLING.get(name, name)} ({theirs}): set poker's options "
                        "once, in options.poker"
                    )
        return chosen
    first = poker_pb2.PokerOptions()
    for name in _FIRST_SPELLING_FIELDS:
        if _is_set(options, name):
            setattr(first, _FIRST_SPELLING.get(name, name), getattr(options, name))
    return first


def _is_set(options: table_pb2.TableOptions, name: str) -> bool:
    """Whether the request set this first-spelling field (first_button has presence)."""
    return (
        options.HasField("first_button") if name == "first_button" else bool(getattr(options, name))
    )


# PokerOptions.odd_chips <-> the engine's rule (unset: one chip each, the default).
ODD_CHIPS = {
    poker_pb2.ODD_CHIPS_ONE_EACH_FROM_BUTTON_LEFT: OddChips.ONE_EACH_FROM_BUTTON_LEFT,
    poker_pb2.ODD_CHIPS_ALL_TO_FIRST_FROM_BUTTON_LEFT: OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT,
}
ODD_CHIP_NUMBERS = {rule: number for number, rule in ODD_CHIPS.items()}


def config_from_options(options: table_pb2.TableOptions) -> TableConfig:
    """The engine configuration for CreateTable options (INVALID_ARGUMENT naming the problem)."""
    poker = poker_options(options)
    game_name = VARIANTS.get(poker.variant)
    if game_name is None:
        raise errors.InvalidArgument(
            "options.poker.variant must be one of "
            + ", ".join(poker_pb2.Variant.keys()[1:])
            + " (or options.game, poker's first spelling)"
        )
    game = GAMES[game_name]
    blinds = game.forced_bets == "blinds"
    if blinds and not (poker.small_blind or poker.big_blind):
        raise errors.InvalidArgument(
            f"{game_name} is played with blinds: set options.poker.small_blind and big_blind"
            " (e.g. 1 and 2); blinds of 0 and 0 would give nobody a reason to play a hand"
        )
    try:
        return TableConfig(
            game=game,
            structure=STRUCTURES.get(poker.structure) if poker.structure else None,
            seats=options.seats or min(6, game.max_seats),
            small_blind=poker.small_blind or (1 if blinds else 0),
            big_blind=poker.big_blind or (2 if blinds else 0),
            ante=poker.ante,
            big_blind_ante=poker.big_blind_ante,
            small_bet=poker.small_bet,
            big_bet=poker.big_bet,
            min_buy_in=options.min_buy_in or 1,
            max_buy_in=options.max_buy_in or 10**12,
            draw_limit=poker.draw_limit or None,
            five_of_a_kind_beats_straight_flush=(
                poker.five_of_a_kind != poker_pb2.FIVE_KIND_BELOW_STRAIGHT_FLUSH
            ),
            first_button_seat=poker.first_button if poker.HasField("first_button") else 0,
            rake_basis_points=poker.rake_basis_points,
            rake_cap=poker.rake_cap,
            fixed_limit_raises=poker.raise_cap or 3,
            uncapped_heads_up=not poker.capped_heads_up,
            timeouts_before_sit_out=poker.timeouts_before_sit_out,
            live_dealer=poker.live_dealer,
            odd_chips=ODD_CHIPS.get(poker.odd_chips, OddChips.ONE_EACH_FROM_BUTTON_LEFT),
        )
    except RuleViolation as violation:
        raise errors.InvalidArgument(violation.message) from violation


def fill_options(config: TableConfig, options: table_pb2.TableOptions) -> None:
    """Write the table's poker options into `options`, in both spellings (and the envelope's
    seats and buy-in range, which the engine's configuration holds)."""
    poker = options.poker
    poker.variant = VARIANT_NUMBERS.get(config.game.name, 0)  # type: ignore[assignment]
    poker.structure = STRUCTURE_NUMBERS.get(config.limit, 0)  # type: ignore[assignment]
    poker.small_blind = config.small_blind
    poker.big_blind = config.big_blind
    poker.ante = config.ante
    poker.big_blind_ante = config.big_blind_ante
    poker.small_bet = config.small_bet
    poker.big_bet = config.big_bet
    poker.raise_cap = config.fixed_limit_raises
    poker.capped_heads_up = not config.uncapped_heads_up
    poker.rake_basis_points = config.rake_basis_points
    poker.rake_cap = config.rake_cap
    poker.draw_limit = config.draw_limit or 0
    poker.five_of_a_kind = (
        poker_pb2.FIVE_KIND_HIGHEST
        if config.five_of_a_kind_beats_straight_flush
        else poker_pb2.FIVE_KIND_BELOW_STRAIGHT_FLUSH
    )
    poker.first_button = config.first_button_seat
    poker.timeouts_before_sit_out = config.timeouts_before_sit_out
    poker.live_dealer = config.live_dealer
    poker.odd_chips = ODD_CHIP_NUMBERS[config.odd_chips]
    for name in _FIRST_SPELLING_FIELDS:
        setattr(options, name, getattr(poker, _FIRST_SPELLING.get(name, name)))
    options.seats = config.seats
    options.min_buy_in = config.min_buy_in
    options.max_buy_in = config.max_buy_in


def move_from_request(request: table_pb2.ActRequest) -> tuple[str, int | None, tuple[str, ...]]:
    """(action, amount, cards) of a poker move, from `request.poker` or the first spelling."""
    first_spelling = bool(request.action or request.amount or request.cards)
    if request.HasField("poker"):
        if first_spelling:
            raise errors.InvalidArgument(
                "set the move once: in poker (PokerMove) or in action/amount/cards, not both"
            )
        number, amount, cards = int(request.poker.action), request.poker.amount, request.poker.cards
    else:
        number, amount, cards = int(request.action), request.amount, request.cards
    action = ACTIONS.get(number)
    if action is None:
        raise errors.InvalidArgument("action must be set (fold, check, call, bet, ...)")
    return action, amount if action in (Action.BET, Action.RAISE) else None, tuple(cards)


def _legal(legal: LegalActions | None, make: Callable[..., Any]) -> list[Any]:
    if legal is None:
        return []
    out = []
    for name in sorted(legal.actions):
        action = make(action=ACTION_NUMBERS[name])
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


def fill_view(view: View, message: table_pb2.TableView, seats: Mapping[int, Any]) -> None:
    """Write the engine's view into `message.poker` and poker's first spelling of the table
    view; `seats` maps a seat to its SeatView in `message` (for the per-seat poker fields)."""
    poker = message.poker
    poker.button = -1 if view.button is None else view.button
    poker.phase = view.phase or ""
    poker.board.extend(view.board)
    poker.current_bet = view.current_bet
    poker.legal_actions.extend(_legal(view.legal, poker_pb2.LegalAction))
    for amount in view.pots:
        poker.pots.append(poker_pb2.Pot(amount=amount))
        message.pots.append(table_pb2.PotView(amount=amount))
    message.button = poker.button
    message.phase = poker.phase
    message.board.extend(view.board)
    message.current_bet = view.current_bet
    message.legal_actions.extend(_legal(view.legal, table_pb2.LegalAction))
    for s in view.seats:
        label = s.rank.high.label if s.rank is not None else ""
        poker.seats.append(
            poker_pb2.PokerSeat(
                seat=s.seat,
                bet=s.bet,
                committed=s.committed,
                folded=s.folded,
                all_in=s.all_in,
                cards=s.cards,
                open_discards=s.open_discards,
                shown=s.shown,
                mucked=s.mucked,
                hand_label=label,
                declared_board=s.declared_board,
            )
        )
        first = seats[s.seat]
        first.bet, first.committed = s.bet, s.committed
        first.folded, first.all_in = s.folded, s.all_in
        first.cards.extend(s.cards)
        first.open_discards.extend(s.open_discards)
        first.shown, first.mucked, first.hand_label = s.shown, s.mucked, label


# The chip amounts of a table's options (derived ones included), as the option that sets them.
_CHIP_OPTIONS = (
    ("small_blind", "small_blind"),
    ("big_blind", "big_blind"),
    ("ante", "ante"),
    ("small_bet", "small_bet (defaults to the big blind, or twice the ante)"),
    ("big_bet", "big_bet (defaults to twice the small bet)"),
    ("min_buy_in", "min_buy_in"),
    ("max_buy_in", "max_buy_in"),
    ("rake_cap", "rake_cap"),
)


def check_chip_amounts(config: TableConfig) -> None:
    """INVALID_ARGUMENT for a chip amount the ledger could never hold (beyond MAX_CHIPS)."""
    for name, option in _CHIP_OPTIONS:
        value = getattr(config, name)
        if value > MAX_CHIPS:
            raise errors.InvalidArgument(
                f"{option} is {value} chips; chip amounts are at most {MAX_CHIPS}"
            )


# The field of TableEvent's `event` oneof that carries each of poker's event messages (and
# the envelope's), by the message's full name.
_EVENT_FIELDS: dict[str, FieldDescriptor] = {
    field.message_type.full_name: field
    for field in events_pb2.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    if field.message_type is not None
}


class PokerEvents:
    """Poker's events <-> croupier.poker.v1 messages (services/table/codec.py), which sit in
    TableEvent's `event` oneof directly, at the numbers they always had."""

    def message_types(self) -> Sequence[type[Message]]:
        return [poker_codec.message_class(name) for name in ev.EVENT_TYPES]

    def former_names(self) -> Sequence[tuple[str, type[Message]]]:
        # croupier.table.v1.X: poker's messages before poker had a package of its own.
        prefix = poker_codec.FORMER_PACKAGE
        return [(f"{prefix}.{m.DESCRIPTOR.name}", m) for m in self.message_types()]

    def to_message(self, event: object) -> Message:
        return poker_codec.to_message(event)

    def from_message(self, message: Message) -> object | None:
        return poker_codec.from_message(message)

    def table_event(self, message: Message, event: events_pb2.TableEvent) -> None:
        field = _EVENT_FIELDS.get(message.DESCRIPTOR.full_name)
        if field is None:
            raise codec.CodecError(f"TableEvent has no field for {message.DESCRIPTOR.full_name}")
        getattr(event, field.name).CopyFrom(message)


class PokerTableAdapter:
    """Poker at the table (adapter.GameTable): every variant, both spellings of its API."""

    name = RULES.name
    proto_field = "poker"
    rules = RULES
    realtime = False
    default_seed_reveal = table_events_pb2.SEED_REVEAL_AUDITORS
    bot_policies = BOT_POLICIES
    events = PokerEvents()

    def config_from_options(self, options: table_pb2.TableOptions) -> TableConfig:
        config = config_from_options(options)
        check_chip_amounts(config)
        return config

    def opening_events(self, config: TableConfig) -> Sequence[object]:
        return [ev.TableOpened(config)]

    def initial_state(self, options: table_pb2.TableOptions) -> PokerTable:
        # The configuration is the stream's TableOpened, which follows TableCreated at once.
        return RULES.initial_state(TableConfig(game=TEXAS_HOLDEM, seats=2))

    def fill_options(self, state: PokerTable, options: table_pb2.TableOptions) -> None:
        fill_options(state.engine.config, options)

    def seat_count(self, state: PokerTable) -> int:
        return state.engine.config.seats

    def move_from_request(self, request: table_pb2.ActRequest) -> tuple[object, object | None]:
        action, amount, cards = move_from_request(request)
        hand = request.hand_number
        return PokerMove(action, amount, cards), InHand(hand) if hand else None

    def sit_in_option(self, request: table_pb2.SitInRequest) -> object | None:
        return PostBigBlind() if request.post_big_blind else None

    def rounds(self, state: PokerTable) -> Rounds:
        engine = state.engine
        return Rounds(engine.hand.number if engine.hand else None, engine.last_hand)

    def fill_view(
        self, view: View, message: table_pb2.TableView, seats: Mapping[int, table_pb2.SeatView]
    ) -> None:
        fill_view(view, message, seats)

    def next_card(self, state: PokerTable) -> table_pb2.CardDue | None:
        due = live_table.next_card(state)
        if due is None:
            return None
        if isinstance(due.recipient, int):
            return table_pb2.CardDue(
                recipient=table_pb2.CARD_RECIPIENT_SEAT,
                seat=due.recipient,
                face_up=due.face_up,
                description=due.what,
            )
        recipient = (
            table_pb2.CARD_RECIPIENT_BOARD
            if due.recipient == BOARD
            else table_pb2.CARD_RECIPIENT_BURN
        )
        return table_pb2.CardDue(recipient=recipient, face_up=due.face_up, description=due.what)

    def fill_decision(
        self, state: PokerTable, seat: int, request: events_pb2.ActionRequested
    ) -> None:
        legal = legal_actions(state.engine, seat)
        request.legal_actions.extend(sorted(legal.actions))
        request.to_call = legal.to_call
        request.min_to = legal.min_to
        request.max_to = legal.max_to
        request.all_in_to = legal.all_in_to

    def seating(self, event: object) -> Seating | None:
        return seat_change(event, ev.PlayerSeated, ev.PlayerLeft)

    def round_of(self, event: object) -> tuple[int, bool] | None:
        if isinstance(event, ev.HandStarted):
            return event.hand, True
        if isinstance(event, ev.HandEnded | ev.HandVoided):
            return event.hand, False
        return None

    def history(
        self,
        state: PokerTable,
        players: Mapping[int, str],
        events: Sequence[object],
        viewer: int | None,
        full: bool,
        table_id: str,
    ) -> tuple[str, str]:
        return poker_history.history(state.engine.config, players, events, viewer, full, table_id)


ADAPTER = PokerTableAdapter()
