"""`apply(state, event) -> state`: folds one event into the table state. Never validates.

Derived bookkeeping (who acts next, the showdown order) is recomputed here from the state,
deterministically, so events stay small and a replay reproduces the live state exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from services.games.betting import able, next_bettor
from services.games.definitions import Betting, DealHole, Draw
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
from services.games.plan import BETTING, DEAL_HOLE, DRAW, SHOWDOWN, plan_of
from services.games.state import HandPlayer, HandState, SeatState, TableState, evolve, new_table

_T = TypeVar("_T")


def _seat(state: TableState, seat: int, **changes: Any) -> TableState:
    seats = list(state.seats)
    current = seats[seat]
    assert current is not None
    seats[seat] = evolve(current, **changes)
    return evolve(state, seats=tuple(seats))


def _chips(state: TableState, seat: int, delta: int) -> TableState:
    return _seat(state, seat, stack=state.stack(seat) + delta)


_new = object.__new__
_set = object.__setattr__
_FOLD = Action.FOLD


def _mk(cls: type[_T], fields: dict[str, Any]) -> _T:
    """A state object with exactly these fields (the caller built a fresh dict, usually
    `{**old.__dict__, "changed": value}`): `evolve` without its call and kwargs overhead."""
    new = _new(cls)
    _set(new, "__dict__", fields)
    return new


def _index(players: list[HandPlayer] | tuple[HandPlayer, ...], seat: int) -> int:
    for i, p in enumerate(players):
        if p.seat == seat:
            return i
    raise KeyError(seat)


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
    blank = _BLANK_PLAYER
    hand = _mk(
        HandState,
        {
            **_BLANK_HAND,
            "number": e.hand,
            "button": e.button,
            "players": tuple([_mk(HandPlayer, {**blank, "seat": s}) for s in e.seats]),
            "big_blind_seat": e.big_blind_seat,
        },
    )
    return _mk(
        TableState,
        {
            **state.__dict__,
            "seats": tuple(seats),
            "hand": hand,
            "last_button": e.button,
            "last_hand": e.hand,
        },
    )


# A new hand's objects are built from these field dicts (the dataclass defaults): a frozen
# dataclass's __init__ sets every field through object.__setattr__, a dict copy does not.
_BLANK_PLAYER: dict[str, Any] = HandPlayer(seat=0).__dict__.copy()
_BLANK_HAND: dict[str, Any] = HandState(number=0, button=0, players=()).__dict__.copy()


def _forced_bet(state: TableState, e: ForcedBetPosted) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    live = e.kind != "ante"
    players[i] = _mk(
        HandPlayer,
        {
            **p.__dict__,
            "committed": p.committed + e.amount,
            "antes": p.antes if live else p.antes + e.amount,
            "bet": p.bet + e.amount if live else p.bet,
        },
    )
    new_hand = _mk(HandState, {**hand.__dict__, "players": tuple(players)})
    seats = _stack_delta(state.seats, e.seat, -e.amount)
    return _mk(TableState, {**state.__dict__, "seats": seats, "hand": new_hand})


def _stack_delta(
    seats: tuple[SeatState | None, ...], seat: int, delta: int, **changes: Any
) -> tuple[SeatState | None, ...]:
    """The seats with one seat's stack moved by `delta` (and other fields changed)."""
    current = seats[seat]
    assert current is not None
    new = list(seats)
    new[seat] = _mk(SeatState, {**current.__dict__, "stack": current.stack + delta, **changes})
    return tuple(new)


def _phase_started(state: TableState, e: PhaseStarted) -> TableState:
    hand = _hand(state)
    plan = plan_of(state.config)
    kind = plan.kinds[e.phase]
    fields = hand.__dict__.copy()  # the new hand is built once, from these fields
    players = hand.players
    if hand.phase >= 0 and plan.kinds[hand.phase] == BETTING:
        players = tuple(
            [
                _mk(HandPlayer, {**p.__dict__, "bet": 0, "acted": False, "acted_level": 0})
                if p.bet or p.acted
                else p
                for p in players
            ]
        )
        fields["players"] = players
        fields["current_bet"] = 0
    fields["phase"] = e.phase
    fields["to_act"] = None
    fields["reached_second_round"] = hand.reached_second_round or e.phase > plan.first_betting
    if kind == BETTING:
        phase = plan.phases[e.phase]
        assert isinstance(phase, Betting)
        fields.update(_start_betting(state, hand, players, phase, e.phase == plan.first_betting))
    elif kind == DRAW:
        players = tuple(
            [
                _mk(HandPlayer, {**p.__dict__, "drew": False, "awaiting": 0, "discards": ()})
                if p.drew or p.awaiting or p.discards
                else p  # already as a draw starts (the first draw after the deal)
                for p in players
            ]
        )
        fields["players"] = players
        fields["to_act"] = _next_drawer_of(players, hand.button)
    elif kind == SHOWDOWN:
        fields["showdown_order"] = _showdown_order_of(players, hand.button, hand.last_aggressor)
    return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})


def _start_betting(
    state: TableState,
    hand: HandState,
    players: tuple[HandPlayer, ...],
    betting: Betting,
    first: bool,
) -> dict[str, Any]:
    """The hand's fields at the start of betting round `betting` with these `players`."""
    config = state.config
    plan = plan_of(config)
    blinds = plan.blinds
    current = 0
    for p in players:
        if p.bet > current:
            current = p.bet
    if first and blinds:
        current = max(current, config.big_blind)
    unit = config.big_bet if betting.big_bet else config.small_bet
    opening = config.big_blind if blinds else config.small_bet
    min_raise = unit if plan.fixed_limit else opening
    in_hand = 0
    for p in players:
        if not p.folded:
            in_hand += 1
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


def _clockwise(players: tuple[HandPlayer, ...], after: int) -> list[HandPlayer]:
    """The players clockwise starting left of seat `after` (players are in seat order)."""
    for i, p in enumerate(players):
        if p.seat > after:
            return [*players[i:], *players[:i]]
    return list(players)


def _next_drawer_of(players: tuple[HandPlayer, ...], after: int) -> int | None:
    """The first player clockwise left of seat `after` still to draw (players are in seat
    order: the first one after `after`, else the first one before it)."""
    before: int | None = None
    for p in players:
        if not p.folded and not p.drew:
            if p.seat > after:
                return p.seat
            if before is None:
                before = p.seat
    return before


def _showdown_order_of(
    players: tuple[HandPlayer, ...], button: int, first: int | None
) -> tuple[int, ...]:
    ordered = [p.seat for p in _clockwise(players, button) if not p.folded]
    if first is not None and first in ordered:
        i = ordered.index(first)
        ordered = ordered[i:] + ordered[:i]
    return tuple(ordered)


def _cards_dealt(state: TableState, e: CardsDealt) -> TableState:
    hand = _hand(state)
    out = hand.out.union(e.cards, e.burned)
    kind = plan_of(state.config).kinds[hand.phase]
    fields = hand.__dict__.copy()
    fields["out"] = out
    if e.seat is None:
        fields["board"] = hand.board + e.cards
        fields["burned"] = hand.burned + e.burned
        fields["dealt_phase"] = hand.phase
        return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    if kind == DRAW:
        players[i] = _mk(
            HandPlayer, {**p.__dict__, "cards": p.cards + e.cards, "awaiting": 0, "drew": True}
        )
        new_players = tuple(players)
        fields["players"] = new_players
        fields["to_act"] = _next_drawer_of(new_players, e.seat)
        return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})
    players[i] = _mk(HandPlayer, {**p.__dict__, "cards": p.cards + e.cards})
    if kind == DEAL_HOLE:
        phase = plan_of(state.config).phases[hand.phase]
        assert isinstance(phase, DealHole)
        count = phase.count
        for q in players:
            if len(q.cards) < count:
                break
        else:
            fields["dealt_phase"] = hand.phase
    fields["players"] = tuple(players)
    return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})


def fold_hole_cards(state: TableState, events: list[CardsDealt]) -> TableState:
    """`apply_all` for one deal of hole cards (several seats, a `DealHole` phase), building
    the hand once instead of once per seat. The same state as folding them one by one: the
    cards only grow, so "every player has the phase's count" after the last event is the
    same as it having become true after some event."""
    hand = _hand(state)
    plan = plan_of(state.config)
    if plan.kinds[hand.phase] != DEAL_HOLE:
        return apply_all(state, events)
    given = {}
    out = set(hand.out)
    for e in events:
        if e.seat is None:
            return apply_all(state, events)
        given[e.seat] = e.cards
        out.update(e.cards)
        out.update(e.burned)
    players = []
    complete = True
    count = plan.phases[hand.phase].count  # type: ignore[union-attr]
    for p in hand.players:
        cards = given.get(p.seat)
        if cards is not None:
            p = _mk(HandPlayer, {**p.__dict__, "cards": p.cards + cards})
        if len(p.cards) < count:
            complete = False
        players.append(p)
    fields = hand.__dict__.copy()
    fields["out"] = frozenset(out)
    fields["players"] = tuple(players)
    if complete:
        fields["dealt_phase"] = hand.phase
    return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})


def _action(state: TableState, e: ActionTaken) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    # A voluntary action ends a run of timeouts; `TimedOut` follows a default action's event.
    seats = state.seats
    seat = seats[e.seat]
    assert seat is not None
    added = e.added
    if seat.timeouts or added:
        changed = list(seats)
        changed[e.seat] = _mk(
            SeatState, {**seat.__dict__, "stack": seat.stack - added, "timeouts": 0}
        )
        seats = tuple(changed)
    fields = hand.__dict__.copy()
    if e.action == _FOLD:
        players[i] = _mk(HandPlayer, {**p.__dict__, "folded": True, "acted": True})
        new_players = tuple(players)
        fields["players"] = new_players
        fields["to_act"] = next_bettor(seats, new_players, hand.current_bet, e.seat, False)
    else:
        current = hand.current_bet
        to = e.to
        if to > current:
            increase = to - current
            plan = plan_of(state.config)
            if plan.fixed_limit:
                if 2 * increase >= plan.units[hand.phase]:
                    fields["bets_made"] = hand.bets_made + 1
            elif increase >= hand.min_raise:
                fields["min_raise"] = increase
                fields["bets_made"] = hand.bets_made + 1
            current = to
            fields["current_bet"] = to
            fields["last_aggressor"] = e.seat
        players[i] = _mk(
            HandPlayer,
            {
                **p.__dict__,
                "bet": to,
                "committed": p.committed + added,
                "acted": True,
                "acted_level": current,
            },
        )
        new_players = tuple(players)
        fields["players"] = new_players
        fields["to_act"] = next_bettor(seats, new_players, current, e.seat, False)
    return _mk(TableState, {**state.__dict__, "seats": seats, "hand": _mk(HandState, fields)})


def _timed_out(state: TableState, e: TimedOut) -> TableState:
    seat = state.seats[e.seat]
    assert seat is not None
    return _seat(state, e.seat, timeouts=seat.timeouts + 1)


def _uncalled(state: TableState, e: UncalledBetReturned) -> TableState:
    hand = _hand(state)
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    players[i] = _mk(
        HandPlayer, {**p.__dict__, "bet": p.bet - e.amount, "committed": p.committed - e.amount}
    )
    current = max([q.bet for q in players])
    new_hand = _mk(HandState, {**hand.__dict__, "players": tuple(players), "current_bet": current})
    seats = _stack_delta(state.seats, e.seat, e.amount)
    return _mk(TableState, {**state.__dict__, "seats": seats, "hand": new_hand})


def _discarded(state: TableState, e: CardsDiscarded) -> TableState:
    hand = _hand(state)
    phase = plan_of(state.config).phases[hand.phase]
    assert isinstance(phase, Draw)
    players = list(hand.players)
    i = _index(players, e.seat)
    p = players[i]
    discarded = e.cards
    kept = tuple([c for c in p.cards if c not in discarded])
    owed = len(discarded) if phase.replace else 0
    players[i] = _mk(
        HandPlayer,
        {
            **p.__dict__,
            "cards": kept,
            "discards": discarded,
            "open_discards": p.open_discards + (discarded if e.face_up else ()),
            "awaiting": owed,
            "drew": owed == 0,
        },
    )
    new_players = tuple(players)
    fields = {
        **hand.__dict__,
        "players": new_players,
        "discard_pile": hand.discard_pile + discarded,
    }
    if owed == 0:
        fields["to_act"] = _next_drawer_of(new_players, e.seat)
    return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})


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
    return _showing(state, _hand(state).players, ranks=e.ranks, board_rank=e.board)


def _showing(state: TableState, players: tuple[HandPlayer, ...], **changes: Any) -> TableState:
    """The state with the hand's players (and other fields) changed and the next seat to
    show or muck worked out from them: one new hand, one new table."""
    fields = {**_hand(state).__dict__, "players": players, **changes}
    hand = _mk(HandState, fields)
    fields["to_act"] = next_shower(hand)
    return _mk(TableState, {**state.__dict__, "hand": _mk(HandState, fields)})


def _marked(state: TableState, seat: int, flag: str) -> TableState:
    """A showdown step: `flag` (shown, mucked, declared_board) set on `seat`."""
    players = list(_hand(state).players)
    i = _index(players, seat)
    players[i] = _mk(HandPlayer, {**players[i].__dict__, flag: True})
    return _showing(state, tuple(players))


def next_shower(hand: HandState) -> int | None:
    """Next seat in showdown order to show or muck; None once the showdown is decided."""
    if hand.ranks is None:
        return None
    unmucked = 0
    by_seat = {}
    for p in hand.players:
        by_seat[p.seat] = p
        if not p.folded and not p.mucked:
            unmucked += 1
    for seat in hand.showdown_order:
        p = by_seat[seat]
        if p.shown or p.mucked or p.declared_board:
            continue
        if unmucked == 1:
            return None  # everyone else mucked: the last hand wins without showing
        return seat
    return None


def _shown(state: TableState, e: CardsShown) -> TableState:
    return _marked(state, e.seat, "shown")


def _mucked(state: TableState, e: HandMucked) -> TableState:
    return _marked(state, e.seat, "mucked")


def _declared(state: TableState, e: BoardDeclared) -> TableState:
    return _marked(state, e.seat, "declared_board")


def _awarded(state: TableState, e: PotAwarded) -> TableState:
    seats = state.seats
    for share in e.shares:
        seats = _stack_delta(seats, share.seat, share.amount)
    return evolve(state, seats=seats)


def _ended(state: TableState, e: HandEnded) -> TableState:
    return _mk(TableState, {**state.__dict__, "hand": None})


def _voided(state: TableState, e: HandVoided) -> TableState:
    for seat, amount in e.refunds:
        state = _chips(state, seat, amount)
    return evolve(state, hand=None)


HANDLERS: dict[type, Callable[[TableState, Any], TableState]] = {
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
    return HANDLERS[type(event)](state, event)


def apply_all(state: TableState, events: Iterable[Event]) -> TableState:
    handlers = HANDLERS
    for event in events:
        state = handlers[type(event)](state, event)
    return state


def replay(events: Iterable[Event]) -> TableState:
    """Rebuild a table from its full stream; the first event must be `TableOpened`."""
    iterator = iter(events)
    first = next(iterator)
    assert isinstance(first, TableOpened), "a table stream starts with TableOpened"
    return apply_all(new_table(first.config), iterator)


__all__ = ["able", "apply", "apply_all", "next_shower", "replay"]
