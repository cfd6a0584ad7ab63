"""`apply(state, event) -> state`: folds one event into the table state. Never validates.

Derived bookkeeping (who acts next, the showdown order) is recomputed here from the state,
deterministically, so events stay small and a replay reproduces the live state exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from services.games.betting import able, fixed_unit, next_bettor
from services.games.definitions import Betting, DealHole, Draw, ForcedBets, Showdown
from services.games.events import (
    Action,
    ActionTaken,
    BoardDeclared,
    CardsDealt,
    CardsDiscarded,
    CardsShown,
    ChipsAdded,
    DiscardsReshuffled,
    Event,
    ForcedBetPosted,
    HandEnded,
    HandMucked,
    HandsRanked,
    HandStarted,
    HandVoided,
    LeaveRequested,
    PhaseStarted,
    PlayerLeft,
    PlayerSatIn,
    PlayerSatOut,
    PlayerSeated,
    PotAwarded,
    TableOpened,
    TimedOut,
    UncalledBetReturned,
)
from services.games.state import HandPlayer, HandState, SeatState, TableState, evolve, new_table


def _seat(state: TableState, seat: int, **changes: Any) -> TableState:
    seats = list(state.seats)
    current = seats[seat]
    assert current is not None
    seats[seat] = evolve(current, **changes)
    return evolve(state, seats=tuple(seats))


def _chips(state: TableState, seat: int, delta: int) -> TableState:
    return _seat(state, seat, stack=state.stack(seat) + delta)


def _player(hand: HandState, seat: int, **changes: Any) -> HandState:
    players = list(hand.players)
    i = hand.index(seat)
    players[i] = evolve(players[i], **changes)
    return evolve(hand, players=tuple(players))


def _hand(state: TableState) -> HandState:
    assert state.hand is not None
    return state.hand


def _table_opened(state: TableState, e: TableOpened) -> TableState:
    return new_table(e.config)


def _seated(state: TableState, e: PlayerSeated) -> TableState:
    seats = list(state.seats)
    seats[e.seat] = SeatState(player=e.player, stack=e.stack)
    return evolve(state, seats=tuple(seats))


def _leave_requested(state: TableState, e: LeaveRequested) -> TableState:
    return _seat(state, e.seat, leaving=True)


def _left(state: TableState, e: PlayerLeft) -> TableState:
    seats = list(state.seats)
    seats[e.seat] = None
    return evolve(state, seats=tuple(seats))


def _sat_out(state: TableState, e: PlayerSatOut) -> TableState:
    return _seat(state, e.seat, sitting_out=True, timeouts=0)


def _sat_in(state: TableState, e: PlayerSatIn) -> TableState:
    # Only a player who missed a hand waits for (or posts) the big blind.
    seat = state.seats[e.seat]
    assert seat is not None
    return _seat(
        state,
        e.seat,
        sitting_out=False,
        waiting_for_big_blind=seat.missed_hand and not e.post_big_blind,
        posts_big_blind=seat.missed_hand and e.post_big_blind,
        missed_hand=False,
    )


def _chips_added(state: TableState, e: ChipsAdded) -> TableState:
    return _chips(state, e.seat, e.amount)


def _hand_started(state: TableState, e: HandStarted) -> TableState:
    seats = list(state.seats)
    for s in e.seats:
        seat = seats[s]
        assert seat is not None
        if seat.waiting_for_big_blind or seat.posts_big_blind:
            seats[s] = evolve(seat, waiting_for_big_blind=False, posts_big_blind=False)
    for s, seat in enumerate(seats):
        if seat is not None and seat.sitting_out and not seat.missed_hand:
            seats[s] = evolve(seat, missed_hand=True)
    hand = HandState(
        number=e.hand,
        button=e.button,
        players=tuple(HandPlayer(seat=s) for s in e.seats),
        big_blind_seat=e.big_blind_seat,
    )
    return evolve(state, seats=tuple(seats), hand=hand, last_button=e.button, last_hand=e.hand)


def _forced_bet(state: TableState, e: ForcedBetPosted) -> TableState:
    hand = _hand(state)
    p = hand.player(e.seat)
    live = e.kind != "ante"
    hand = _player(
        hand,
        e.seat,
        committed=p.committed + e.amount,
        antes=p.antes if live else p.antes + e.amount,
        bet=p.bet + e.amount if live else p.bet,
    )
    return evolve(state, seats=_stack_delta(state.seats, e.seat, -e.amount), hand=hand)


def _stack_delta(
    seats: tuple[SeatState | None, ...], seat: int, delta: int, **changes: Any
) -> tuple[SeatState | None, ...]:
    """The seats with one seat's stack moved by `delta` (and other fields changed)."""
    current = seats[seat]
    assert current is not None
    new = list(seats)
    new[seat] = evolve(current, stack=current.stack + delta, **changes)
    return tuple(new)


def _phase_started(state: TableState, e: PhaseStarted) -> TableState:
    hand = _hand(state)
    config = state.config
    previous = state.phase()
    phase = config.game.phases[e.phase]
    changes: dict[str, Any] = {}
    if isinstance(previous, Betting):
        changes["players"] = tuple(
            evolve(p, bet=0, acted=False, acted_level=0) if p.bet or p.acted else p
            for p in hand.players
        )
        changes["current_bet"] = 0
    first_betting = config.game.first_betting_phase
    changes["phase"] = e.phase
    changes["to_act"] = None
    changes["reached_second_round"] = hand.reached_second_round or e.phase > first_betting
    if isinstance(phase, Betting):
        players = changes.get("players", hand.players)
        changes.update(_start_betting(state, hand, players, phase, e.phase == first_betting))
        return evolve(state, hand=evolve(hand, **changes))
    hand = evolve(hand, **changes)
    if isinstance(phase, Draw):
        players = tuple(evolve(p, drew=False, awaiting=0, discards=()) for p in hand.players)
        hand = evolve(hand, players=players)
        return evolve(state, hand=evolve(hand, to_act=_next_drawer(hand, hand.button)))
    if isinstance(phase, Showdown):
        return evolve(state, hand=evolve(hand, showdown_order=_showdown_order(hand)))
    return evolve(state, hand=hand)


def _start_betting(
    state: TableState,
    hand: HandState,
    players: tuple[HandPlayer, ...],
    betting: Betting,
    first: bool,
) -> dict[str, Any]:
    """The hand's fields at the start of betting round `betting` with these `players`."""
    config = state.config
    blinds = config.game.forced_bets is ForcedBets.BLINDS
    current = max((p.bet for p in players), default=0)
    if first and blinds:
        current = max(current, config.big_blind)
    unit = config.big_bet if betting.big_bet else config.small_bet
    opening = config.big_blind if blinds else config.small_bet
    min_raise = unit if config.limit.value == "fixed-limit" else opening
    in_hand = sum(1 for p in players if not p.folded)
    if first and blinds and hand.big_blind_seat is not None:
        start = hand.big_blind_seat
    else:
        start = hand.button
    return {
        "current_bet": current,
        "min_raise": min_raise,
        "bets_made": 1 if current > 0 else 0,
        "capped": not (config.uncapped_heads_up and in_hand == 2),
        "last_aggressor": None,
        "to_act": next_bettor(state.seats, players, current, start, False),
    }


def _next_drawer(hand: HandState, after: int) -> int | None:
    for p in hand.clockwise_from(after):
        if not p.folded and not p.drew:
            return p.seat
    return None


def _showdown_order(hand: HandState) -> tuple[int, ...]:
    first = hand.last_aggressor
    ordered = [p.seat for p in hand.clockwise_from(hand.button) if not p.folded]
    if first is not None and first in ordered:
        i = ordered.index(first)
        ordered = ordered[i:] + ordered[:i]
    return tuple(ordered)


def _cards_dealt(state: TableState, e: CardsDealt) -> TableState:
    hand = _hand(state)
    out = hand.out.union(e.cards, e.burned)
    phase = state.config.game.phases[hand.phase]
    if e.seat is None:
        hand = evolve(
            hand,
            board=hand.board + e.cards,
            burned=hand.burned + e.burned,
            out=out,
            dealt_phase=hand.phase,
        )
        return evolve(state, hand=hand)
    players = list(hand.players)
    i = hand.index(e.seat)
    p = players[i]
    if isinstance(phase, Draw):
        players[i] = evolve(p, cards=p.cards + e.cards, awaiting=0, drew=True)
        hand = evolve(hand, out=out, players=tuple(players))
        return evolve(state, hand=evolve(hand, to_act=_next_drawer(hand, e.seat)))
    players[i] = evolve(p, cards=p.cards + e.cards)
    dealt = hand.dealt_phase
    if isinstance(phase, DealHole) and all(len(q.cards) >= phase.count for q in players):
        dealt = hand.phase
    hand = evolve(hand, out=out, players=tuple(players), dealt_phase=dealt)
    return evolve(state, hand=hand)


def _action(state: TableState, e: ActionTaken) -> TableState:
    hand = _hand(state)
    i = hand.index(e.seat)
    p = hand.players[i]
    # A voluntary action ends a run of timeouts; `TimedOut` follows a default action's event.
    seats = state.seats
    seat = seats[e.seat]
    assert seat is not None
    if seat.timeouts or e.added:
        seats = _stack_delta(seats, e.seat, -e.added, timeouts=0)
    if e.action == Action.FOLD:
        players = list(hand.players)
        players[i] = evolve(p, folded=True, acted=True)
        to_act = next_bettor(seats, tuple(players), hand.current_bet, e.seat, False)
        hand = evolve(hand, players=tuple(players), to_act=to_act)
    else:
        current, min_raise, bets_made, aggressor = (
            hand.current_bet,
            hand.min_raise,
            hand.bets_made,
            hand.last_aggressor,
        )
        if e.to > current:
            increase = e.to - current
            if state.config.limit.value == "fixed-limit":
                if 2 * increase >= fixed_unit(state):
                    bets_made += 1
            elif increase >= min_raise:
                min_raise = increase
                bets_made += 1
            current, aggressor = e.to, e.seat
        players = list(hand.players)
        players[i] = evolve(
            p, bet=e.to, committed=p.committed + e.added, acted=True, acted_level=current
        )
        new_players = tuple(players)
        hand = evolve(
            hand,
            players=new_players,
            current_bet=current,
            min_raise=min_raise,
            bets_made=bets_made,
            last_aggressor=aggressor,
            to_act=next_bettor(seats, new_players, current, e.seat, False),
        )
    return evolve(state, seats=seats, hand=hand)


def _timed_out(state: TableState, e: TimedOut) -> TableState:
    seat = state.seats[e.seat]
    assert seat is not None
    return _seat(state, e.seat, timeouts=seat.timeouts + 1)


def _uncalled(state: TableState, e: UncalledBetReturned) -> TableState:
    hand = _hand(state)
    p = hand.player(e.seat)
    hand = _player(hand, e.seat, bet=p.bet - e.amount, committed=p.committed - e.amount)
    current = max(q.bet for q in hand.players)
    return evolve(_chips(state, e.seat, e.amount), hand=evolve(hand, current_bet=current))


def _discarded(state: TableState, e: CardsDiscarded) -> TableState:
    hand = _hand(state)
    phase = state.phase()
    assert isinstance(phase, Draw)
    players = list(hand.players)
    i = hand.index(e.seat)
    p = players[i]
    kept = tuple(c for c in p.cards if c not in e.cards)
    owed = len(e.cards) if phase.replace else 0
    players[i] = evolve(
        p,
        cards=kept,
        discards=e.cards,
        open_discards=p.open_discards + (e.cards if e.face_up else ()),
        awaiting=owed,
        drew=owed == 0,
    )
    hand = evolve(hand, players=tuple(players), discard_pile=hand.discard_pile + e.cards)
    if owed == 0:
        hand = evolve(hand, to_act=_next_drawer(hand, e.seat))
    return evolve(state, hand=hand)


def _reshuffled(state: TableState, e: DiscardsReshuffled) -> TableState:
    hand = _hand(state)
    back = set(e.cards)
    hand = evolve(
        hand,
        out=hand.out - back,
        discard_pile=tuple(c for c in hand.discard_pile if c not in back),
    )
    return evolve(state, hand=hand)


def _ranked(state: TableState, e: HandsRanked) -> TableState:
    hand = evolve(_hand(state), ranks=e.ranks, board_rank=e.board)
    return evolve(state, hand=evolve(hand, to_act=next_shower(hand)))


def next_shower(hand: HandState) -> int | None:
    """Next seat in showdown order to show or muck; None once the showdown is decided."""
    if hand.ranks is None:
        return None
    unmucked = [p for p in hand.players if not p.folded and not p.mucked]
    for seat in hand.showdown_order:
        p = hand.player(seat)
        if p.shown or p.mucked or p.declared_board:
            continue
        if len(unmucked) == 1:
            return None  # everyone else mucked: the last hand wins without showing
        return seat
    return None


def _shown(state: TableState, e: CardsShown) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    i = hand.index(e.seat)
    players[i] = evolve(players[i], shown=True)
    shown = evolve(hand, players=tuple(players))
    return evolve(state, hand=evolve(shown, to_act=next_shower(shown)))


def _mucked(state: TableState, e: HandMucked) -> TableState:
    hand = _player(_hand(state), e.seat, mucked=True)
    return evolve(state, hand=evolve(hand, to_act=next_shower(hand)))


def _declared(state: TableState, e: BoardDeclared) -> TableState:
    hand = _player(_hand(state), e.seat, declared_board=True)
    return evolve(state, hand=evolve(hand, to_act=next_shower(hand)))


def _awarded(state: TableState, e: PotAwarded) -> TableState:
    seats = state.seats
    for share in e.shares:
        seats = _stack_delta(seats, share.seat, share.amount)
    return evolve(state, seats=seats)


def _ended(state: TableState, e: HandEnded) -> TableState:
    return evolve(state, hand=None)


def _voided(state: TableState, e: HandVoided) -> TableState:
    for seat, amount in e.refunds:
        state = _chips(state, seat, amount)
    return evolve(state, hand=None)


_HANDLERS: dict[type, Callable[[TableState, Any], TableState]] = {
    TableOpened: _table_opened,
    PlayerSeated: _seated,
    LeaveRequested: _leave_requested,
    PlayerLeft: _left,
    PlayerSatOut: _sat_out,
    PlayerSatIn: _sat_in,
    ChipsAdded: _chips_added,
    HandStarted: _hand_started,
    ForcedBetPosted: _forced_bet,
    PhaseStarted: _phase_started,
    CardsDealt: _cards_dealt,
    ActionTaken: _action,
    TimedOut: _timed_out,
    UncalledBetReturned: _uncalled,
    CardsDiscarded: _discarded,
    DiscardsReshuffled: _reshuffled,
    HandsRanked: _ranked,
    CardsShown: _shown,
    HandMucked: _mucked,
    BoardDeclared: _declared,
    PotAwarded: _awarded,
    HandEnded: _ended,
    HandVoided: _voided,
}


def apply(state: TableState, event: Event) -> TableState:
    return _HANDLERS[type(event)](state, event)


def apply_all(state: TableState, events: Iterable[Event]) -> TableState:
    for event in events:
        state = apply(state, event)
    return state


def replay(events: Iterable[Event]) -> TableState:
    """Rebuild a table from its full stream; the first event must be `TableOpened`."""
    iterator = iter(events)
    first = next(iterator)
    assert isinstance(first, TableOpened), "a table stream starts with TableOpened"
    return apply_all(new_table(first.config), iterator)


__all__ = ["able", "apply", "apply_all", "next_shower", "replay"]
