"""The evaluator (`croupier.evaluator.v1.EvaluatorService`): a hand's value and equities.

odds = EvaluatorClient(settings).equity([["As", "Kd"], ["Qh", "Qc"]], board=["2c", "7d", "Js"])
[p.equity for p in odds.players]
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc
from services.sdk.connection import Caller, ClientSettings, open_channel

SERVICE = "EvaluatorService"


class EvaluatorClient:
    def __init__(self, settings: ClientSettings | None = None) -> None:
        self.settings = settings or ClientSettings.from_env()
        self._channel = open_channel(self.settings, "evaluator")
        self.stub = evaluator_pb2_grpc.EvaluatorServiceStub(self._channel)
        self._caller = Caller(SERVICE, self.settings)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> EvaluatorClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def evaluate(
        self,
        hole: Sequence[str],
        board: Sequence[str] = (),
        *,
        include_low: bool = False,
        rules: evaluator_pb2.HandRules | None = None,
    ) -> evaluator_pb2.EvaluateResponse:
        """The best hand from `hole` and `board` ("As", "Td", ...), with its description."""
        request = evaluator_pb2.EvaluateRequest(
            hole_cards=hole, board_cards=board, include_low=include_low, rules=rules
        )
        return self._caller.call("Evaluate", self.stub.Evaluate, request)

    def equity(
        self,
        players: Sequence[Sequence[str]],
        *,
        board: Sequence[str] = (),
        dead: Sequence[str] = (),
        game: evaluator_pb2.EquityGame.ValueType = evaluator_pb2.EQUITY_GAME_HOLDEM,
        samples: int = 0,
        seats: Sequence[int] | None = None,
        cpu_budget_ms: int = 0,
    ) -> evaluator_pb2.EquityResponse:
        """Each player's chance to win, tie and their equity (exact when small enough, else
        Monte Carlo with `samples` deals; the service's CPU budget bounds the run)."""
        numbers = list(seats) if seats is not None else list(range(len(players)))
        request = evaluator_pb2.EquityRequest(
            game=game,
            players=[
                evaluator_pb2.SeatCards(seat=seat, hole_cards=cards)
                for seat, cards in zip(numbers, players, strict=True)
            ],
            board_cards=board,
            dead_cards=dead,
            samples=samples,
            cpu_budget_ms=cpu_budget_ms,
        )
        return self._caller.call("Equity", self.stub.Equity, request)
