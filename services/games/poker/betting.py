"""Betting arithmetic: who acts next, and the legal amounts for the seat to act.

No-limit: a bet is at least the minimum bet; a raise increases the bet by at least the last
full bet or raise of the round. Pot-limit: at most the pot after the call. Fixed-limit: the
small or big bet, one bet and `fixed_limit_raises` raises per round (uncapped heads-up if the
table says so). An all-in for less than a full raise does not reopen the betting: a seat that
already acted may raise again only if it faces at least a full raise since it last acted
(TDA rule on cumulative short all-ins; in fixed-limit, half a bet counts as a full raise).
"""

from __future__ import annotations

from typing import Final

from services.games.poker.events import Action
from services.games.poker.plan import Plan, plan_of
from services.games.poker.records import BetOptions as BetOptions
from services.games.poker.state import HandPlayer, HandState, SeatState, TableState


def able(state: TableState, p: HandPlayer) -> bool:
    """Still in the hand with chips behind: can take betting actions."""
    return not p.folded and state.stack(p.seat) > 0


def next_to_act(state: TableState, hand: HandState, start: int, include: bool) -> int | None:
    """First seat clockwise from `start` that still owes a betting decision, or None."""
    return next_bettor(state.seats, hand.players, hand.current_bet, start, include)


def next_bettor(
    seats: tuple[SeatState | None, ...],
    players: tuple[HandPlayer, ...],
    current: int,
    start: int,
    include: bool,
) -> int | None:
    """`next_to_act` from the parts the reducer has at hand (it builds them before the
    state objects, so it need not make a state just to ask).

    Of the players still in with chips, the first clockwise from `start` who faces a bet or
    has not acted this round; a lone such player only when facing a bet (nobody is left to
    act against). One pass: players are in seat order, so the first match after `start` wins
    and otherwise the first match before it (the wrap-around)."""
    count = 0
    only: HandPlayer | None = None
    after: int | None = None
    before: int | None = None
    for p in players:
        if p.folded or seats[p.seat].stack <= 0:  # type: ignore[union-attr]
            continue
        count += 1
        only = p
        if after is None and (p.bet < current or not p.acted):
            s = p.seat
            if s >= start if include else s > start:
                after = s
            elif before is None:
                before = s
    if count >= 2:
        return after if after is not None else before
    if only is not None and only.bet < current:
        return only.seat
    return None


def reopened_for(plan: Plan, hand: HandState, p: HandPlayer) -> bool:
    """May `p` raise again this round? Yes before it has acted; after, only if the bets since
    it last acted add up to a full raise (half a bet or more in fixed limit): a short all-in
    does not reopen the betting for those who already acted."""
    if not p.acted:
        return True
    faced = hand.current_bet - p.acted_level
    if plan.fixed_limit:
        return 2 * faced >= plan.units[hand.phase]
    return faced >= hand.min_raise


# `legal_actions` and `decide` ask for the same seat's options of the same (immutable)
# state one after the other: remember the last answer. One tuple, swapped atomically, in a
# `Final` one-item list (read without a module dict lookup when compiled, as in `plan_of`).
_LAST: Final[list[tuple[TableState | None, HandState | None, int, BetOptions | None]]] = [
    (None, None, -1, None)
]


def options(state: TableState, hand: HandState, seat: int) -> BetOptions:
    last = _LAST[0]
    if last[0] is state and last[1] is hand and last[2] == seat:
        assert last[3] is not None
        return last[3]
    result = _options(state, hand, seat)
    _LAST[0] = (state, hand, seat, result)
    return result


def _options(state: TableState, hand: HandState, seat: int) -> BetOptions:
    seats = state.seats
    current = hand.current_bet
    # A raise nobody can call would only come back as an uncalled bet: like pokerkit, allow
    # one only while some opponent still has chips beyond the current bet.
    me: HandPlayer | None = None
    others_can_respond = False
    for q in hand.players:
        if q.seat == seat:
            me = q
        elif not others_can_respond and not q.folded:
            behind = seats[q.seat].stack  # type: ignore[union-attr]
            if behind > 0 and q.bet + behind > current:
                others_can_respond = True
    if me is None:
        raise KeyError(seat)
    p = me
    occupant = seats[seat]
    stack = occupant.stack if occupant is not None else 0
    owed = current - p.bet
    all_in_to = p.bet + stack
    plan = plan_of(state.config)
    can_raise = stack > owed and others_can_respond
    if can_raise and p.acted:  # not acted: `reopened_for` is True, skip the call
        can_raise = reopened_for(plan, hand, p)
    min_to = max_to = 0
    if plan.fixed_limit:
        if hand.capped and hand.bets_made >= 1 + state.config.fixed_limit_raises:
            can_raise = False
        min_to = max_to = current + plan.units[hand.phase]
    else:
        min_to = current + hand.min_raise
        max_to = all_in_to
        if plan.pot_limit:
            max_to = current + hand.pot_total() + owed
    kind: str | None = None
    all_in_legal = stack > 0 and stack <= owed
    if can_raise:
        if all_in_to < min_to:
            all_in_legal = True
        else:
            kind = Action.BET if current == 0 else Action.RAISE
            all_in_legal = all_in_to <= max_to
            max_to = min(max_to, all_in_to)
    return BetOptions(
        min(owed, stack),
        owed <= 0,
        kind,
        min_to if kind else 0,
        max_to if kind else 0,
        all_in_to,
        all_in_legal,
        p.bet,
        stack,
    )
