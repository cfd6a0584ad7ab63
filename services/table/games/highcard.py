"""High card's translation: croupier.highcard.v1 <-> the rules' values
(services/games/highcard), and its history as text. No I/O, no rules: the rules check every
value they are given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from croupier.highcard.v1 import events_pb2 as highcard_events_pb2
from croupier.table.v1 import events_pb2, table_pb2
from croupier.table.v1 import events_pb2 as table_events_pb2
from services.bots.policies import NAMES as BOT_POLICIES
from services.games.errors import RuleViolation
from services.games.highcard import events as ev
from services.games.highcard.config import HighCardConfig
from services.games.highcard.moves import InRound, Turn
from services.games.highcard.rules import RULES
from services.games.highcard.state import SEATS, HighCardState
from services.games.highcard.views import HIDDEN, HighCardView
from services.shared import errors
from services.shared.limits import MAX_CHIPS
from services.table.games.adapter import Rounds, Seating, seat_change
from services.table.games.structural import StructuralCodec


class HighCardTableAdapter:
    """Heads-up high card at the table (adapter.GameTable)."""

    name = RULES.name
    proto_field = "highcard"
    rules = RULES
    realtime = False
    default_seed_reveal = table_events_pb2.SEED_REVEAL_AUDITORS
    bot_policies = BOT_POLICIES
    events = StructuralCodec(ev.EVENT_TYPES, highcard_events_pb2, "highcard")

    def config_from_options(self, options: table_pb2.TableOptions) -> HighCardConfig:
        if options.seats not in (0, len(SEATS)):
            raise errors.InvalidArgument(
                f"options.seats is {options.seats}: high card is heads-up (2 seats, or 0)"
            )
        ante = options.highcard.ante or 1
        for name, value in (
            ("highcard.ante", ante),
            ("min_buy_in", options.min_buy_in),
            ("max_buy_in", options.max_buy_in),
        ):
            if value > MAX_CHIPS:
                raise errors.InvalidArgument(
                    f"{name} is {value} chips; chip amounts are at most {MAX_CHIPS}"
                )
        try:
            return HighCardConfig(
                ante=ante,
                min_buy_in=options.min_buy_in or 1,
                max_buy_in=options.max_buy_in or 10**12,
            )
        except RuleViolation as violation:
            raise errors.InvalidArgument(violation.message) from violation

    def opening_events(self, config: HighCardConfig) -> Sequence[object]:
        return []  # the state starts from the options TableCreated records

    def initial_state(self, options: table_pb2.TableOptions) -> HighCardState:
        return RULES.initial_state(self.config_from_options(options))

    def fill_options(self, state: HighCardState, options: table_pb2.TableOptions) -> None:
        config = state.config
        options.highcard.ante = config.ante
        options.seats = len(SEATS)
        options.min_buy_in = config.min_buy_in
        options.max_buy_in = config.max_buy_in

    def seat_count(self, state: HighCardState) -> int:
        return len(SEATS)

    def move_from_request(self, request: table_pb2.ActRequest) -> tuple[object, object | None]:
        move = request.highcard
        if move.WhichOneof("move") != "turn":
            raise errors.InvalidArgument("a high-card move is `turn` (ActRequest.highcard.turn)")
        round_ = move.round or request.hand_number
        return Turn(), InRound(round_) if round_ else None

    def sit_in_option(self, request: table_pb2.SitInRequest) -> object | None:
        if request.post_big_blind:
            raise errors.InvalidArgument("high card has no blinds: send SitIn without them")
        return None

    def rounds(self, state: HighCardState) -> Rounds:
        return Rounds(state.round.number if state.round else None, state.rounds)

    def fill_view(
        self,
        view: HighCardView,
        message: table_pb2.TableView,
        seats: Mapping[int, table_pb2.SeatView],
    ) -> None:
        mine = message.highcard
        mine.pot = view.pot
        mine.can_turn = view.legal is not None and view.legal.turn
        for s in view.seats:
            mine.seats.add(seat=s.seat, card=s.card or "", turned=s.turned)
            if s.card:
                seats[s.seat].cards.append(s.card)

    def next_card(self, state: HighCardState) -> table_pb2.CardDue | None:
        return None  # never dealt by a live dealer

    def fill_decision(
        self, state: HighCardState, seat: int, request: events_pb2.ActionRequested
    ) -> None:
        return None  # the one move is public: turn

    def seating(self, event: object) -> Seating | None:
        return seat_change(event, ev.PlayerSeated, ev.PlayerLeft)

    def round_of(self, event: object) -> tuple[int, bool] | None:
        if isinstance(event, ev.RoundStarted):
            return event.round, True
        if isinstance(event, ev.RoundWon | ev.RoundVoided):
            return event.round, False
        return None

    def history(
        self,
        state: HighCardState,
        players: Mapping[int, str],
        events: Sequence[object],
        viewer: int | None,
        full: bool,
        table_id: str,
    ) -> tuple[str, str]:
        """Text only (high card has no interchange format): the ante, the cards as they
        were turned (a card never turned shows to its own seat and to full histories only),
        the result."""

        def who(seat: int) -> str:
            return f"seat {seat} ({players.get(seat, '?')})"

        started = events[0]
        assert isinstance(started, ev.RoundStarted)
        lines = [f"Table {table_id} - round #{started.round} - high card, ante {started.ante}"]
        for event in events[1:]:
            if isinstance(event, ev.CardsDealt):
                for seat, card in enumerate(event.cards):
                    if full or seat == viewer:
                        lines.append(f"Dealt to {who(seat)}: {card}")
                    else:
                        lines.append(f"Dealt to {who(seat)}: {HIDDEN}")
            elif isinstance(event, ev.CardTurned):
                late = " (time ran out)" if event.timed_out else ""
                lines.append(f"{who(event.seat)} turns {event.card}{late}")
            elif isinstance(event, ev.RoundWon):
                lines.append("*** RESULT ***")
                lines += [f"{who(s)} wins {chips}" for s, chips in event.shares]
                lines += [f"{who(s)}: {chips}" for s, chips in event.stacks]
            elif isinstance(event, ev.RoundVoided):
                lines.append(f"*** ROUND VOIDED: {event.reason} ***")
        return "", "\n".join(lines) + "\n"


ADAPTER = HighCardTableAdapter()
