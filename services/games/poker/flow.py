"""Automatic progress: the events that follow by themselves once nobody needs to decide.

After every accepted command `decide` folds its events in and asks `next_automatic` for more
(end a betting round and return the uncalled bet, move to the next phase, expose all-in hands,
award the pots, end the hand) until a player, the dealer or the evaluator is needed.
"""

from __future__ import annotations

from services.games.poker.definitions import OddChips
from services.games.poker.events import (
    CardsShown,
    Event,
    HandEnded,
    PlayerLeft,
    PotAwarded,
    Share,
    UncalledBetReturned,
)
from services.games.poker.plan import BETTING, DEAL_BOARD, DEAL_HOLE, DRAW, SHOWDOWN, plan_of
from services.games.poker.pots import build_pots, rake_for, split
from services.games.poker.reducer import apply
from services.games.poker.state import HandPlayer, HandState, TableState


def advance(state: TableState) -> tuple[TableState, list[Event]]:
    produced: list[Event] = []
    while True:
        events = next_automatic(state)
        if not events:
            return state, produced
        for event in events:
            state = apply(state, event)
            produced.append(event)


def next_automatic(state: TableState) -> list[Event]:
    hand = state.hand
    if hand is None:
        return []
    plan = plan_of(state.config)
    if hand.phase < 0:
        return [plan.started[0]]
    kind = plan.kinds[hand.phase]
    in_hand = 0
    if kind == BETTING and hand.to_act is not None:
        for p in hand.players:
            if not p.folded:
                in_hand += 1
                if in_hand > 1:
                    return []  # the common case: a betting round goes on
    else:
        for p in hand.players:
            if not p.folded:
                in_hand += 1
    if in_hand == 1:
        return _uncalled(hand) or _award(state)
    if kind in (DEAL_HOLE, DEAL_BOARD):
        return [plan.started[hand.phase + 1]] if hand.dealt_phase == hand.phase else []
    if kind == BETTING:
        if hand.to_act is not None:
            return []
        return _uncalled(hand) or [plan.started[hand.phase + 1]]
    if kind == DRAW:
        return [plan.started[hand.phase + 1]] if hand.to_act is None else []
    if kind == SHOWDOWN:
        if hand.ranks is None:
            return []
        contenders = [p for p in hand.players if not p.folded]
        if any(state.stack(p.seat) == 0 for p in contenders):
            # All-in showdown: every hand is tabled (TDA "face up for all-in").
            unshown = [s for s in hand.showdown_order if not hand.player(s).shown]
            if unshown:
                return [CardsShown(s, hand.player(s).cards) for s in unshown]
        return [] if hand.to_act is not None else _award(state)
    return []


def _uncalled(hand: HandState) -> list[Event]:
    bets = sorted((p.bet for p in hand.players), reverse=True)
    if len(bets) < 2 or bets[0] <= bets[1]:
        return []
    top = next(p for p in hand.players if p.bet == bets[0])
    return [UncalledBetReturned(top.seat, bets[0] - bets[1])]


def _strength(hand: HandState, p: HandPlayer, low: bool) -> int | None:
    rank = hand.board_rank if p.declared_board else hand.rank_of(p.seat)
    if rank is None:
        return None
    if low:
        return rank.low.strength if rank.low is not None else None
    return rank.high.strength


def _best(hand: HandState, claimants: list[HandPlayer], low: bool) -> list[int]:
    scored = [(s, p.seat) for p in claimants if (s := _strength(hand, p, low)) is not None]
    if not scored:
        return []
    top = max(s for s, _ in scored)
    return [seat for s, seat in scored if s == top]


def _award(state: TableState) -> list[Event]:
    hand = state.hand
    assert hand is not None
    config = state.config
    contenders = [p for p in hand.players if not p.folded]
    claimants = [p for p in contenders if p.shown or p.declared_board]
    if not claimants:
        claimants = [p for p in contenders if not p.mucked] or contenders
    pots = build_pots(hand)
    total = sum(pot.amount for pot in pots)
    rake_left = (
        rake_for(total, config.rake_basis_points, config.rake_cap)
        if hand.reached_second_round
        else 0
    )
    events: list[Event] = []
    for index, pot in enumerate(pots):
        rake = min(rake_left, pot.amount)
        rake_left -= rake
        amount = pot.amount - rake
        eligible = [p for p in claimants if p.seat in pot.eligible]
        if not eligible:
            eligible = [p for p in contenders if p.seat in pot.eligible]
        if len(eligible) == 1:
            shares = [Share(eligible[0].seat, amount)]
        else:
            shares = _divide(state, hand, eligible, amount)
        events.append(PotAwarded(index, pot.amount, pot.eligible, tuple(shares), rake))
    # The stacks once the pots are paid (what folding the PotAwarded events gives).
    won: dict[int, int] = {}
    for event in events:
        for share in event.shares:  # type: ignore[union-attr]
            won[share.seat] = won.get(share.seat, 0) + share.amount
    stacks = tuple(
        [(i, s.stack + won.get(i, 0)) for i, s in enumerate(state.seats) if s is not None]
    )
    events.append(HandEnded(hand.number, stacks))
    for i, s in enumerate(state.seats):
        if s is not None and s.leaving:
            events.append(PlayerLeft(i, s.player, s.stack + won.get(i, 0)))
    return events


def _divide(
    state: TableState, hand: HandState, eligible: list[HandPlayer], amount: int
) -> list[Share]:
    config = state.config
    size = config.seats
    first = config.odd_chips is OddChips.ALL_TO_FIRST_FROM_BUTTON_LEFT
    high = _best(hand, eligible, low=False)
    low = _best(hand, eligible, low=True) if config.game.high_low else []
    if not high:  # no ranks (should not happen): split among eligible
        high = [p.seat for p in eligible]
    if not low:
        return split(amount, high, hand.button, size, "all", first)
    low_half = amount // 2
    return split(amount - low_half, high, hand.button, size, "high", first) + split(
        low_half, low, hand.button, size, "low", first
    )
