"""What the engine needs next from outside the players: a hand start, cards, a reshuffle of
the discards, or hand ranks. The shell (table service) reads `pending_chance(state)`, asks the
dealer or the evaluator, and feeds the answer back as a command.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from services.games.cardtext import DECK_SIZE, Card
from services.games.poker.commands import DealCards, ReshuffleDiscards, SupplyHandRanks
from services.games.poker.definitions import DealBoard, DealHole, ForcedBets
from services.games.poker.plan import BETTING, DRAW, SHOWDOWN, plan_of
from services.games.poker.records import NeedCards as NeedCards
from services.games.poker.state import TableState
from services.games.ranking import HandRanker, RankRequest, rank_with


@dataclass(frozen=True, slots=True)
class NeedHandStart:
    """No hand in progress and two or more players can be dealt in: send `StartHand`."""


@dataclass(frozen=True, slots=True)
class NeedReshuffle:
    """The stub cannot cover `seat`'s draw: shuffle these discards back into it."""

    seat: int
    stub: int  # cards left in the stub
    discards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class NeedRanks:
    """Rank every contender's hand (and the board, for declare-board) and send
    `SupplyHandRanks`."""

    requests: tuple[RankRequest, ...]


ChanceRequest = NeedHandStart | NeedCards | NeedReshuffle | NeedRanks


def eligible_seats(state: TableState) -> list[int]:
    return [
        i
        for i, s in enumerate(state.seats)
        if s is not None and not s.sitting_out and not s.leaving and s.stack > 0
    ]


# The shell asks `pending_chance` and then `decide` asks it again for the same (immutable)
# state: remember the last answer. One tuple, swapped atomically, in a `Final` one-item list
# (read without a module dict lookup when compiled, as in `plan.plan_of`).
_LAST: Final[list[tuple[TableState | None, ChanceRequest | None]]] = [(None, None)]


def pending_chance(state: TableState) -> ChanceRequest | None:
    """None means a player is to act (`state.hand.to_act`) or the table waits for players."""
    last = _LAST[0]
    if last[0] is state:
        return last[1]
    result = _pending(state)
    _LAST[0] = (state, result)
    return result


def _pending(state: TableState) -> ChanceRequest | None:
    hand = state.hand
    if hand is None:
        return NeedHandStart() if len(eligible_seats(state)) >= 2 else None
    if hand.phase < 0:
        return None
    plan = plan_of(state.config)
    kind = plan.kinds[hand.phase]
    if kind == BETTING:
        return None  # only players act during a betting round: the common case, first
    phase = plan.phases[hand.phase]
    if kind == DRAW:
        if hand.to_act is not None:
            p = hand.player(hand.to_act)
            if p.awaiting:
                stub = DECK_SIZE - len(hand.out)
                if stub < p.awaiting:
                    pile = tuple(c for c in hand.discard_pile if c not in p.discards)
                    return NeedReshuffle(p.seat, stub, pile)
                return NeedCards(((p.seat, p.awaiting),))
        return None
    if hand.dealt_phase != hand.phase:
        if isinstance(phase, DealHole):
            count = phase.count
            return NeedCards(
                tuple([(p.seat, count - len(p.cards)) for p in hand.clockwise_from(hand.button)]),
                0,
                phase.face_up,
                phase.one_at_a_time,
            )
        if isinstance(phase, DealBoard):
            return NeedCards(((None, phase.count),), phase.burn, True)
    if kind == SHOWDOWN and hand.ranks is None:
        return NeedRanks(rank_requests(state))
    return None


def rank_requests(state: TableState) -> tuple[RankRequest, ...]:
    hand = state.hand
    assert hand is not None
    game = state.config.game
    wild = frozenset({hand.board[0][0]}) if game.board_rank_wild and hand.board else frozenset()
    five_high = state.config.five_of_a_kind_beats_straight_flush
    requests = [
        RankRequest(p.seat, p.cards + hand.board, wild, five_high, game.high_low)
        for p in hand.players
        if not p.folded
    ]
    if game.board_can_play and len(hand.board) >= 5:
        requests.append(RankRequest(None, hand.board, wild, five_high, game.high_low))
    return tuple(requests)


def rank_hands(state: TableState, ranker: HandRanker) -> SupplyHandRanks:
    """Answer a `NeedRanks` request with an injected pure ranking function."""
    ranks = []
    board = None
    for request in rank_requests(state):
        value = rank_with(ranker, request)
        if request.seat is None:
            board = value
        else:
            ranks.append((request.seat, value))
    return SupplyHandRanks(tuple(ranks), board)


def deal_from(request: NeedCards, deck: Iterator[Card]) -> DealCards:
    """Take cards off the top of `deck` the way a dealer would for `request` (burn first,
    then round-robin or target by target). Used with pinned decks and by simulations."""
    burned = tuple([next(deck) for _ in range(request.burn)]) if request.burn else ()
    targets = request.targets
    if request.one_at_a_time and len(targets) > 1:
        hands: dict[int | None, list[Card]] = {t: [] for t, _ in targets}
        for round_ in range(max([n for _, n in targets])):
            for target, n in targets:
                if round_ < n:
                    hands[target].append(next(deck))
        return DealCards(tuple([(t, tuple(hands[t])) for t, _ in targets]), burned)
    # Target by target (one target dealt one at a time is the same thing).
    return DealCards(
        tuple([(t, tuple([next(deck) for _ in range(n)])) for t, n in targets]), burned
    )


def reshuffle(request: NeedReshuffle) -> ReshuffleDiscards:
    return ReshuffleDiscards(request.discards)


def uses_blinds(state: TableState) -> bool:
    return state.config.game.forced_bets is ForcedBets.BLINDS
