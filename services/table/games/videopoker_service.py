"""VideoPokerService: the calls only video poker has (thin gRPC adapter), served by the
table service beside TableService (the catalog's `GAME_SERVICES`).

ListPaytables answers from the pay tables' data and their exact returns (pinned against the
analyzer by the tests). Advise runs the exact advisor (services.videopoker_analysis) on a
hand given by its cards or on the round in play at a table, read from the table service's
state of that table (what any viewer sees: a machine hides nothing but an undealt split
card, which the advisor never needs). The advisor's tables are built on a pay table's first
query (seconds, once per process; services/videopoker_analysis/disk_cache.py keeps them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import grpc

from croupier.videopoker.v1 import videopoker_pb2, videopoker_pb2_grpc
from services.games.videopoker import RULES
from services.games.videopoker.state import MachineState
from services.games.videopoker.views import round_view
from services.shared import errors
from services.table.games import videopoker as translation
from services.videopoker_analysis import advisor

SERVICE_NAME = videopoker_pb2.DESCRIPTOR.services_by_name["VideoPokerService"].full_name


@dataclass(frozen=True, slots=True)
class DealtRound:
    """What the advisor needs of a table's round in play."""

    round: int
    cards: tuple[str, ...]  # "Kh|Qh" for a dealt split card
    paytable: str
    coins: int


# table id -> the round in play as dealt; raises NotFound (no table), FailedPrecondition (not
# a video poker table, no round showing).
RoundReader = Callable[[str], DealtRound]
# table id -> (the table's game name, its game state): what the table service knows of it.
TableReader = Callable[[str], tuple[str, object]]


def no_tables(table_id: str) -> DealtRound:
    raise errors.FailedPrecondition(
        "this service advises on hands given by their cards only: it reads no tables"
    )


def dealt_round(table_id: str, game: str, state: object) -> DealtRound:
    """The round in play at a machine, as its player sees it, once its cards show."""
    if game != RULES.name or not isinstance(state, MachineState):
        raise errors.FailedPrecondition(
            f"table {table_id} plays {game or 'poker'}, not video poker: nothing to advise"
        )
    current = state.round
    if current is None:
        raise errors.FailedPrecondition(f"no round is in play at {table_id}: deal first")
    shown = round_view(current, False)
    if shown.phase != "holding":
        raise errors.FailedPrecondition(
            f"round {current.number} at {table_id} is {shown.phase}: a hand is advised on "
            "while its cards show and before the hold"
        )
    return DealtRound(current.number, shown.cards, current.paytable, current.coins)


def register(server: grpc.Server, read_table: TableReader) -> None:
    """Add VideoPokerService to a table server whose tables `read_table` reads."""

    def read_round(table_id: str) -> DealtRound:
        game, state = read_table(table_id)
        return dealt_round(table_id, game, state)

    videopoker_pb2_grpc.add_VideoPokerServiceServicer_to_server(
        VideoPokerServicer(read_round), server
    )


class VideoPokerServicer(videopoker_pb2_grpc.VideoPokerServiceServicer):
    def __init__(self, read_round: RoundReader = no_tables) -> None:
        self._read_round = read_round
        self._paytables = translation.list_paytables()
        self._lock = threading.Lock()  # one thread builds a pay table's tables at a time

    def ListPaytables(  # noqa: N802 (gRPC's method name)
        self, request: videopoker_pb2.ListPaytablesRequest, context: grpc.ServicerContext
    ) -> videopoker_pb2.ListPaytablesResponse:
        return self._paytables

    def Advise(  # noqa: N802 (gRPC's method name)
        self, request: videopoker_pb2.AdviseRequest, context: grpc.ServicerContext
    ) -> videopoker_pb2.AdviseResponse:
        which = request.WhichOneof("subject")
        if which == "table_id":
            if not request.table_id:
                raise errors.InvalidArgument("table_id is empty: name the table to advise on")
            dealt = self._read_round(request.table_id)
        elif which == "hand":
            hand = request.hand
            dealt = DealtRound(0, tuple(hand.cards), hand.paytable, hand.coins)
        else:
            raise errors.InvalidArgument(
                "set what to advise on: table_id (its round in play) or hand (cards, paytable, "
                "coins)"
            )
        return advise(dealt, self._lock)


def advise(dealt: DealtRound, lock: threading.Lock | None = None) -> videopoker_pb2.AdviseResponse:
    """The advisor's answer for one dealt hand (INVALID_ARGUMENT for a hand it cannot read)."""
    try:
        if lock is not None:
            with lock:
                advisor.warm(dealt.paytable, dealt.coins)
        advice = advisor.advise(dealt.cards, dealt.paytable, dealt.coins)
    except advisor.AdviceError as error:
        raise errors.InvalidArgument(str(error)) from error
    return videopoker_pb2.AdviseResponse(
        cards=advice.cards,
        paytable=advice.paytable,
        coins=advice.coins,
        round=dealt.round,
        holds=[
            videopoker_pb2.HoldValue(
                positions=hold.positions,
                expected_win=f"{hold.expected_win.numerator}/{hold.expected_win.denominator}",
                expected_return=float(hold.per_coin(advice.coins)),
            )
            for hold in advice.holds
        ],
    )


def warm(paytables: Iterable[str], coins: Iterable[int]) -> None:
    """Build the advisor's tables ahead of the first query (a server that wants every hint
    fast from its first one)."""
    for name in paytables:
        for count in coins:
            advisor.warm(name, count)
