"""VideoPokerService: the calls only video poker has (thin gRPC adapter).

ListPaytables answers from the pay tables' data and their exact returns (pinned against the
analyzer by the tests). Advise runs the exact advisor (services.videopoker_analysis) on a
hand given by its cards or on the round in play at a table, read through `read_round` (the
table service's current state, as the caller's view shows it: the machine hides nothing
from its player but an undealt split card, which the advisor never needs). The advisor's
tables are built on a pay table's first query (seconds, once per process) unless `warm`
built them at start.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import grpc

from croupier.videopoker.v1 import videopoker_pb2, videopoker_pb2_grpc
from services.shared import errors
from services.table.games import videopoker as translation
from services.videopoker_analysis import advisor


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


def no_tables(table_id: str) -> DealtRound:
    raise errors.FailedPrecondition(
        "this service advises on hands given by their cards only: it reads no tables"
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
