"""The evaluator's use cases: decode a request, run the pure library, encode the answer.

There is no state and no I/O: every call is a pure function of its request, so any number
of servers can answer. The table and the bots call the shared library `services.ranking`
in process, or this service over gRPC; both give identical results.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from croupier.evaluator.v1 import evaluator_pb2 as pb
from services.evaluator import wire
from services.ranking import best_high, best_low, showdown
from services.ranking.equity import DEFAULT_MAX_EXACT, BudgetExceeded, equity
from services.shared.errors import InvalidArgument, ResourceExhausted


def evaluate(request: pb.EvaluateRequest) -> pb.EvaluateResponse:
    hole = wire.cards(request.hole_cards, "hole_cards")
    board = wire.cards(request.board_cards, "board_cards")
    wild = wire.wild_set(request.rules)
    rule = wire.use_rule(request.rules)
    below = request.rules.five_of_a_kind_below_straight_flush
    with wire.invalid_argument():
        high = best_high(hole, board, rule, wild, below)
        low = best_low(hole, board, rule, wild) if request.include_low else None
    return pb.EvaluateResponse(high=wire.high_hand(high), low=wire.low_hand(low))


def compare(request: pb.CompareRequest) -> pb.CompareResponse:
    if not request.hands:
        raise InvalidArgument("hands: give at least one hand to compare")
    rules = wire.game_rules(pb.POT_SPLIT_HIGH_ONLY, request.rules)
    seats = wire.seats(request.hands, "hands")
    with wire.invalid_argument():
        result = showdown(rules, wire.cards(request.board_cards, "board_cards"), seats)
    return pb.CompareResponse(
        results=[wire.high_hand(s.high) for s in result.seats], winners=result.high_winners
    )


def run_showdown(request: pb.ShowdownRequest) -> pb.ShowdownResponse:
    rules = wire.game_rules(request.split, request.rules)
    seats = wire.seats(request.seats, "seats")
    with wire.invalid_argument():
        result = showdown(rules, wire.cards(request.board_cards, "board_cards"), seats)
    return pb.ShowdownResponse(
        seats=[
            pb.SeatShowdown(seat=s.seat, high=wire.high_hand(s.high), low=wire.low_hand(s.low))
            for s in result.seats
        ],
        high_winners=result.high_winners,
        low_winners=result.low_winners,
    )


def run_equity(
    request: pb.EquityRequest, cpu_limit_ms: int, cpu_clock: Callable[[], float] = time.thread_time
) -> pb.EquityResponse:
    """Equity within a CPU budget: the request's `cpu_budget_ms`, at most `cpu_limit_ms`.

    The budget is checked between chunks of deals (`services.ranking.sampling.CHUNK`), on the
    CPU clock of the thread serving the call, so a busy machine does not cut work short and
    one call overruns its budget by at most one chunk.
    """
    game = wire.equity_game(request.game)
    samples = request.samples or 20_000
    max_exact = request.max_exact_deals or DEFAULT_MAX_EXACT
    if samples > wire.MAX_SAMPLES or max_exact > wire.MAX_EXACT_DEALS:
        raise InvalidArgument(
            f"samples must be at most {wire.MAX_SAMPLES} and max_exact_deals at most "
            f"{wire.MAX_EXACT_DEALS}"
        )
    budget_ms = min(request.cpu_budget_ms or cpu_limit_ms, cpu_limit_ms)
    players = wire.seats(request.players, "players")
    deadline = cpu_clock() + budget_ms / 1000

    def out_of_budget(done: int) -> bool:
        return cpu_clock() >= deadline

    with wire.invalid_argument():
        try:
            result = equity(
                game,
                [p.hole for p in players],
                wire.cards(request.board_cards, "board_cards"),
                wire.cards(request.dead_cards, "dead_cards"),
                samples=samples,
                seed=request.seed,
                max_exact=max_exact,
                wild_cards=wire.wild_set(request.rules),
                five_kind_below=request.rules.five_of_a_kind_below_straight_flush,
                should_stop=out_of_budget,
            )
        except BudgetExceeded as stopped:
            raise ResourceExhausted(
                f"exact equity over {stopped.total:,} deals needs more than the {budget_ms} ms "
                f"CPU budget (stopped after {stopped.done:,}): set max_exact_deals below "
                f"{stopped.total:,} for a Monte Carlo estimate instead"
            ) from stopped
    return wire.equity_response(result, [p.seat for p in players])


def evaluate_many(request: pb.EvaluateManyRequest) -> pb.EvaluateManyResponse:
    if len(request.requests) > wire.MAX_HANDS_PER_CALL:
        raise InvalidArgument(
            f"requests: at most {wire.MAX_HANDS_PER_CALL} hands per call, got "
            f"{len(request.requests)}"
        )
    responses = []
    for index, item in enumerate(request.requests):
        try:
            responses.append(evaluate(item))
        except InvalidArgument as error:
            raise InvalidArgument(f"requests[{index}]: {error.message}") from error
    return pb.EvaluateManyResponse(responses=responses)
