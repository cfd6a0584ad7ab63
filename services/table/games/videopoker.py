"""Video poker's table adapter: croupier.videopoker.v1 <-> the video poker rules' values.

`ADAPTER` is video poker's `GameTable` (services/table/games/adapter.py): a machine is a
table with one seat playing against the house. No I/O and no rules here: the rules check
every value they are given (lines, coins, pay table, positions), so a request is only read
here, and refused here only when it cannot be read at all (no move set, a pay table option
that names no pay table, amounts the ledger could never hold).

Events are stored under their message's full name (croupier.videopoker.v1.RoundStarted ...);
the rules' events (services/games/videopoker/events.py) map one-to-one by class name and
field name (`structural.StructuralCodec`), and a watcher gets them inside VideoPokerEvent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction

from croupier.table.v1 import events_pb2 as table_events_pb2
from croupier.table.v1 import table_pb2
from croupier.videopoker.v1 import events_pb2, videopoker_pb2
from services.bots.policies import NAMES as BOT_POLICIES
from services.games.videopoker import RULES, history
from services.games.videopoker import events as ev
from services.games.videopoker.moves import Deal, Hold, LegalMoves, MachineConfig
from services.games.videopoker.paytables import PAYTABLES, PayTable
from services.games.videopoker.returns import RETURNS
from services.games.videopoker.state import MachineState
from services.games.videopoker.views import MachineView, RoundView
from services.shared import errors
from services.shared.limits import MAX_CHIPS
from services.table.games.adapter import Rounds, Seating, seat_change
from services.table.games.structural import StructuralCodec

PROTO_FIELD = "videopoker"  # its member of the table API's oneofs
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

# The most one round can win, in coins (10 lines x 5 coins x the best pay a coin, 800): with
# the denomination it must stay within what the ledger holds.
MOST_COINS_WON = 10 * 5 * 800


def config_from_options(
    options: videopoker_pb2.VideoPokerOptions,
    seats: int = 0,
    min_buy_in: int = 0,
    max_buy_in: int = 0,
) -> MachineConfig:
    """The machine's configuration for CreateTable (INVALID_ARGUMENT naming the problem):
    the game's options and the envelope's seats (0 or 1) and buy-in range (0: the default)."""
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
    denomination = options.denomination or 1
    if denomination * MOST_COINS_WON > MAX_CHIPS:
        raise errors.InvalidArgument(
            f"options.videopoker.denomination {denomination}: a round could win "
            f"{denomination * MOST_COINS_WON} chips; chip amounts are at most {MAX_CHIPS}"
        )
    default = MachineConfig()
    low, high = min_buy_in or default.min_buy_in, max_buy_in or default.max_buy_in
    if min_buy_in < 0 or max_buy_in < 0 or low > high or high > MAX_CHIPS:
        raise errors.InvalidArgument(
            f"options.min_buy_in / max_buy_in ({min_buy_in} / {max_buy_in}) must be a range "
            f"of positive chip amounts, at most {MAX_CHIPS}"
        )
    return MachineConfig(
        paytables=chosen or default.paytables,
        denomination=denomination,
        min_buy_in=low,
        max_buy_in=high,
    )


def machine_config(options: table_pb2.TableOptions) -> MachineConfig:
    """The configuration a table's options describe (CreateTable's, or TableCreated's)."""
    return config_from_options(
        options.videopoker, options.seats, options.min_buy_in, options.max_buy_in
    )


def options_to_proto(config: MachineConfig) -> videopoker_pb2.VideoPokerOptions:
    return videopoker_pb2.VideoPokerOptions(
        paytables=config.paytables, denomination=config.denomination
    )


def move_from_request(request: table_pb2.ActRequest) -> Deal | Hold:
    """The rules' move of an Act at a machine (its `videopoker` member; `hand_number`, when
    set, is the round a hold is for)."""
    if request.WhichOneof("move") != PROTO_FIELD or request.action or request.cards:
        raise errors.InvalidArgument(
            "this table is a video poker machine: set the move in ActRequest.videopoker "
            "(deal or hold), nothing else"
        )
    move = move_from_proto(request.videopoker)
    if isinstance(move, Hold) and request.hand_number:
        if move.round not in (0, request.hand_number):
            raise errors.InvalidArgument(
                f"hand_number {request.hand_number} and videopoker.hold.round {move.round} "
                "disagree: name the round once"
            )
        return Hold(request.hand_number, move.positions)
    return move


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

EVENTS = StructuralCodec(
    {cls.__name__: cls for cls in ev.EVENT_TYPES.values()}, events_pb2, PROTO_FIELD
)


# ---------------------------------------------------------------- the table adapter


class VideoPokerTable:
    """Video poker at the table (services.table.games.adapter.GameTable): a machine with one
    seat against the house."""

    name = RULES.name
    proto_field = PROTO_FIELD
    rules = RULES
    realtime = False
    default_seed_reveal = table_events_pb2.SEED_REVEAL_EVERYONE  # every card it deals is public
    bot_policies = BOT_POLICIES
    events = EVENTS

    def config_from_options(self, options: table_pb2.TableOptions) -> MachineConfig:
        return machine_config(options)

    def opening_events(self, config: MachineConfig) -> Sequence[object]:
        return ()  # TableCreated.options records the whole configuration

    def initial_state(self, options: table_pb2.TableOptions) -> MachineState:
        return RULES.initial_state(machine_config(options))

    def fill_options(self, state: MachineState, options: table_pb2.TableOptions) -> None:
        config = state.config
        options.videopoker.CopyFrom(options_to_proto(config))
        options.seats = SEATS
        options.min_buy_in = config.min_buy_in
        options.max_buy_in = config.max_buy_in

    def seat_count(self, state: MachineState) -> int:
        return SEATS

    def move_from_request(self, request: table_pb2.ActRequest) -> tuple[object, object | None]:
        return move_from_request(request), None

    def sit_in_option(self, request: table_pb2.SitInRequest) -> object | None:
        return None

    def rounds(self, state: MachineState) -> Rounds:
        return Rounds(state.round.number if state.round is not None else None, state.rounds)

    def fill_view(
        self,
        view: MachineView,
        message: table_pb2.TableView,
        seats: Mapping[int, table_pb2.SeatView],
    ) -> None:
        message.videopoker.CopyFrom(view_to_proto(view))
        message.phase = phase_name(view)

    def next_card(self, state: MachineState) -> table_pb2.CardDue | None:
        return None  # never dealt by a live dealer

    def fill_decision(
        self, state: MachineState, seat: int, request: table_events_pb2.ActionRequested
    ) -> None:
        return None

    def seating(self, event: object) -> Seating | None:
        return seat_change(event, ev.PlayerSeated, ev.PlayerLeft)

    def round_of(self, event: object) -> tuple[int, bool] | None:
        if isinstance(event, ev.RoundStarted):
            return event.round, True
        if isinstance(event, ev.RoundEnded):
            return event.round, False
        return None

    def history(
        self,
        state: MachineState,
        players: Mapping[int, str],
        events: Sequence[object],
        viewer: int | None,
        full: bool,
        table_id: str,
    ) -> tuple[str, str]:
        """(JSON, text) of one round: nothing in it is hidden once it ended (the undealt
        split card is in its reveals), so every viewer gets all of it."""
        kinds = tuple(ev.EVENT_TYPES.values())
        mine: list[ev.Event] = [e for e in events if isinstance(e, kinds)]
        number = next(e.round for e in mine if isinstance(e, ev.RoundStarted))
        record = history.round_record(mine, number)
        assert record is not None
        record.player = players.get(0, "")
        data = {"table_id": table_id, **history.to_json(record)}
        return json.dumps(data, indent=2), history.to_text(record)


ADAPTER = VideoPokerTable()
