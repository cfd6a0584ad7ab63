"""The ranker the table's showdowns use, behind the engine's ranking port (HandRanker).

By default the shared ranking library (services.ranking) runs in process (the same code the
evaluator service serves; no network hop per showdown); CROUPIER_TABLE_RANKER=evaluator asks
the evaluator service instead, one Evaluate RPC per hand ranked. Either way the values are what
HandsRanked events record, so replaying a table never needs the evaluator again.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc

from croupier.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc
from services.games.cardtext import Card
from services.games.ranking import HandRanker, HandValue
from services.ranking.ports import LibraryRanker
from services.shared.channels import service_channel
from services.shared.settings import RuntimeSettings
from services.table.adapters import CALL_TIMEOUT_S, call
from services.table.settings import TableSettings

__all__ = ["GrpcEvaluatorRanker", "LibraryRanker", "ranker_for"]


class GrpcEvaluatorRanker:
    """HandRanker over the evaluator service's Evaluate RPC (one call per hand ranked)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._stub = evaluator_pb2_grpc.EvaluatorServiceStub(channel)

    def _evaluate(
        self, cards: Sequence[Card], wild_ranks: frozenset[str], below: bool, low: bool
    ) -> evaluator_pb2.EvaluateResponse:
        request = evaluator_pb2.EvaluateRequest(
            hole_cards=list(cards),
            rules=evaluator_pb2.HandRules(
                wild_ranks=sorted(wild_ranks), five_of_a_kind_below_straight_flush=below
            ),
            include_low=low,
        )
        return call("evaluator Evaluate", lambda: self._stub.Evaluate(request, CALL_TIMEOUT_S))

    def rank_high(
        self,
        cards: Sequence[Card],
        wild_ranks: frozenset[str] = frozenset(),
        five_of_a_kind_beats_straight_flush: bool = True,
    ) -> HandValue:
        high = self._evaluate(
            cards, wild_ranks, not five_of_a_kind_beats_straight_flush, False
        ).high
        return HandValue(high.value, high.description, tuple(high.cards))

    def rank_low_eight(self, cards: Sequence[Card]) -> HandValue | None:
        response = self._evaluate(cards, frozenset(), False, True)
        if not response.HasField("low"):
            return None
        return HandValue(response.low.value, response.low.description, tuple(response.low.cards))


def ranker_for(settings: TableSettings, runtime: RuntimeSettings) -> HandRanker:
    if settings.ranker == "evaluator":
        return GrpcEvaluatorRanker(service_channel(settings.evaluator_target, runtime))
    return LibraryRanker()
